namespace ClaudeReviewBot.Core.Models;

/// <summary>One file of a pull request, as the review sees it.</summary>
/// <param name="Path">Repository-relative path.</param>
/// <param name="Status">added, modified, removed or renamed.</param>
/// <param name="{member}">The unified diff of this file, or null for binary files.</param>
public sealed record ChangedFile(string Path, string Status, string? {member})
{
    /// <summary>True when the file has a textual diff to review.</summary>
    public bool HasText => !string.IsNullOrEmpty({member});
}
