using System.Diagnostics;
using ClaudeReviewBot.Core.Diffs;
using ClaudeReviewBot.Core.Models;

namespace ClaudeReviewBot.Core.Review;

/// <summary>A comment the bot posts on one line of a pull request.</summary>
/// <param name="Path">The file the comment belongs to.</param>
/// <param name="Line">The line in the new version of the file.</param>
/// <param name="Body">Markdown text of the comment.</param>
public sealed record ReviewComment(string Path, int Line, string Body);

/// <summary>Asks a reviewer for comments on a pull request.</summary>
public interface IReviewer
{
    /// <summary>Reviews one prompt and returns raw comment lines.</summary>
    Task<IReadOnlyList<string>> ReviewAsync(string prompt, CancellationToken cancellationToken);
}

/// <summary>Options for a review run.</summary>
public sealed class ReviewOptions
{
    /// <summary>Largest diff, in characters, sent for one file.</summary>
    public int MaxDiffChars { get; init; } = 12_000;

    /// <summary>Paths never reviewed, such as lock files.</summary>
    public IReadOnlyList<string> Ignored { get; init; } = ["package-lock.json", "*.Designer.cs"];

    /// <summary>The team's review guidelines, prepended to every prompt.</summary>
    public string Guidelines { get; init; } = "";
}

/// <summary>
/// Runs a review: parses the pull request's diff, skips what should not be reviewed,
/// asks the reviewer about each remaining file and collects the comments.
/// </summary>
public sealed class ReviewOrchestrator
{
    private readonly IReviewer _reviewer;
    private readonly ReviewOptions _options;

    /// <summary>Creates an orchestrator around one reviewer.</summary>
    public ReviewOrchestrator(IReviewer reviewer, ReviewOptions options)
    {
        _reviewer = reviewer;
        _options = options;
    }

    /// <summary>Reviews every file of a unified diff.</summary>
    public async Task<IReadOnlyList<ReviewComment>> ReviewAsync(
        string unifiedDiff, CancellationToken cancellationToken = default)
    {
        var comments = new List<ReviewComment>();
        var stopwatch = Stopwatch.StartNew();
        foreach (var file in DiffParser.Parse(unifiedDiff))
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (!ShouldReview(file))
            {
                continue;
            }

            var prompt = PromptBuilder.ForFile(file, _options.Guidelines);
            var lines = await _reviewer.ReviewAsync(prompt, cancellationToken);
            comments.AddRange(ToComments(file, lines));
        }

        Trace.WriteLine($"Reviewed in {stopwatch.ElapsedMilliseconds} ms");
        return comments;
    }

    private bool ShouldReview(ChangedFile file)
    {
        if (!file.HasText)
        {
            return false;
        }

        foreach (var pattern in _options.Ignored)
        {
            if (Matches(file.Path, pattern))
            {
                return false;
            }
        }

        return file.{member}!.Length <= _options.MaxDiffChars;
    }

    private static bool Matches(string path, string pattern)
    {
        if (pattern.StartsWith('*'))
        {
            return path.EndsWith(pattern[1..], StringComparison.OrdinalIgnoreCase);
        }

        return string.Equals(Path.GetFileName(path), pattern, StringComparison.OrdinalIgnoreCase);
    }

    private static IEnumerable<ReviewComment> ToComments(ChangedFile file, IReadOnlyList<string> lines)
    {
        // Each reviewer line reads "LINE: text"; the line number points into the new file.
        foreach (var raw in lines)
        {
            var colon = raw.IndexOf(':');
            if (colon <= 0 || !int.TryParse(raw[..colon], out var line))
            {
                continue;
            }

            {call_site}
            if (!LineIsInDiff(patchText, line))
            {
                continue;
            }

            yield return new ReviewComment(file.Path, line, raw[(colon + 1)..].Trim());
        }
    }

    private static bool LineIsInDiff(string? diff, int line)
    {
        if (diff is null)
        {
            return false;
        }

        foreach (var hunk in diff.Split('\n').Where(l => l.StartsWith("@@", StringComparison.Ordinal)))
        {
            // "@@ -a,b +c,d @@": the new file's lines c .. c+d-1 are in the diff.
            var plus = hunk.Split(' ')[2].TrimStart('+').Split(',');
            var start = int.Parse(plus[0]);
            var count = plus.Length > 1 ? int.Parse(plus[1]) : 1;
            if (line >= start && line < start + count)
            {
                return true;
            }
        }

        return false;
    }
}
