using ClaudeReviewBot.Core.Models;

namespace ClaudeReviewBot.Core.Diffs;

/// <summary>Splits a unified diff of a whole pull request into files.</summary>
public static class DiffParser
{
    /// <summary>Parses the output of `git diff` into one entry per file.</summary>
    public static IReadOnlyList<ChangedFile> Parse(string unifiedDiff)
    {
        var files = new List<ChangedFile>();
        string? path = null;
        var body = new System.Text.StringBuilder();
        foreach (var line in unifiedDiff.Split('\n'))
        {
            if (line.StartsWith("diff --git ", StringComparison.Ordinal))
            {
                Flush();
                path = line.Split(' ').Last()[2..];
                continue;
            }
            body.AppendLine(line);
        }
        Flush();
        return files;

        void Flush()
        {
            if (path is null) return;
            files.Add(new ChangedFile(path, "modified", {member}: body.ToString()));
            body.Clear();
        }
    }
}
