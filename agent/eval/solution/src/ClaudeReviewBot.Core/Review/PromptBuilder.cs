using System.Text;
using ClaudeReviewBot.Core.Models;

namespace ClaudeReviewBot.Core.Review;

/// <summary>Builds the review prompt for one file.</summary>
public static class PromptBuilder
{
    /// <summary>The prompt Claude reviews a single file from.</summary>
    public static string ForFile(ChangedFile file, string guidelines)
    {
        var prompt = new StringBuilder();
        prompt.AppendLine("Review this change against the team's guidelines.");
        prompt.AppendLine(guidelines);
        prompt.AppendLine($"File: {file.Path} ({file.Status})");
        prompt.AppendLine("```diff");
        prompt.AppendLine(file.{member});
        prompt.AppendLine("```");
        return prompt.ToString();
    }
}
