"""The C# sources of the fixture solution, before and during the Patch -> Diff rename.

`BEFORE` is what the main branch holds; `RENAMED` is the working tree on the rename branch,
where every use of `ChangedFile.Patch` has moved to `Diff` except one in ReviewOrchestrator.
The line numbers matter: the scenario's compiler error sits at ReviewOrchestrator.cs line 111.
"""

from __future__ import annotations

SOLUTION_NAME = "ClaudeReviewBot"
CORE = "src/ClaudeReviewBot.Core"
CLI = "src/ClaudeReviewBot.Cli"
TESTS = "tests/ClaudeReviewBot.Core.Tests"
ORCHESTRATOR = f"{CORE}/Review/ReviewOrchestrator.cs"
CALL_SITE_LINE = 111
# The one statement the developer left for Monday, and what it becomes once finished.
LEFT_OVER = "var patchText = file.Patch;"
FINISHED = "var patchText = file.Diff;"

SLN = """\
Microsoft Visual Studio Solution File, Format Version 12.00
# Visual Studio Version 17
VisualStudioVersion = 17.8.34309.116
MinimumVisualStudioVersion = 10.0.40219.1
Project("{9A19103F-16F7-4668-BE54-9A1E7A4F7556}") = "ClaudeReviewBot.Core", "src\\ClaudeReviewBot.Core\\ClaudeReviewBot.Core.csproj", "{4F1C2A61-3B0E-4C4B-9E57-0D8A61C3B101}"
EndProject
Project("{9A19103F-16F7-4668-BE54-9A1E7A4F7556}") = "ClaudeReviewBot.Cli", "src\\ClaudeReviewBot.Cli\\ClaudeReviewBot.Cli.csproj", "{8B2D3C72-4C1F-4D5C-AF68-1E9B72D4C202}"
EndProject
Project("{9A19103F-16F7-4668-BE54-9A1E7A4F7556}") = "ClaudeReviewBot.Core.Tests", "tests\\ClaudeReviewBot.Core.Tests\\ClaudeReviewBot.Core.Tests.csproj", "{C93E4D83-5D20-4E6D-B079-2FAC83E5D303}"
EndProject
Global
\tGlobalSection(SolutionConfigurationPlatforms) = preSolution
\t\tDebug|Any CPU = Debug|Any CPU
\t\tRelease|Any CPU = Release|Any CPU
\tEndGlobalSection
EndGlobal
"""

CORE_CSPROJ = """\
<Project Sdk="Microsoft.NET.Sdk">

  <PropertyGroup>
    <TargetFramework>net8.0</TargetFramework>
    <ImplicitUsings>enable</ImplicitUsings>
    <Nullable>enable</Nullable>
    <GenerateDocumentationFile>true</GenerateDocumentationFile>
  </PropertyGroup>

</Project>
"""

CLI_CSPROJ = """\
<Project Sdk="Microsoft.NET.Sdk">

  <PropertyGroup>
    <OutputType>Exe</OutputType>
    <TargetFramework>net8.0</TargetFramework>
    <ImplicitUsings>enable</ImplicitUsings>
    <Nullable>enable</Nullable>
    <AssemblyName>review-bot</AssemblyName>
  </PropertyGroup>

  <ItemGroup>
    <ProjectReference Include="..\\ClaudeReviewBot.Core\\ClaudeReviewBot.Core.csproj" />
  </ItemGroup>

</Project>
"""

TESTS_CSPROJ = """\
<Project Sdk="Microsoft.NET.Sdk">

  <PropertyGroup>
    <TargetFramework>net8.0</TargetFramework>
    <ImplicitUsings>enable</ImplicitUsings>
    <Nullable>enable</Nullable>
    <IsPackable>false</IsPackable>
  </PropertyGroup>

  <ItemGroup>
    <PackageReference Include="Microsoft.NET.Test.Sdk" Version="17.8.0" />
    <PackageReference Include="xunit" Version="2.6.2" />
    <PackageReference Include="xunit.runner.visualstudio" Version="2.5.4" />
  </ItemGroup>

  <ItemGroup>
    <ProjectReference Include="..\\..\\src\\ClaudeReviewBot.Core\\ClaudeReviewBot.Core.csproj" />
  </ItemGroup>

</Project>
"""

CHANGED_FILE = """\
namespace ClaudeReviewBot.Core.Models;

/// <summary>One file of a pull request, as the review sees it.</summary>
/// <param name="Path">Repository-relative path.</param>
/// <param name="Status">added, modified, removed or renamed.</param>
/// <param name="{member}">The unified diff of this file, or null for binary files.</param>
public sealed record ChangedFile(string Path, string Status, string? {member})
{{
    /// <summary>True when the file has a textual diff to review.</summary>
    public bool HasText => !string.IsNullOrEmpty({member});
}}
"""

DIFF_PARSER = """\
using ClaudeReviewBot.Core.Models;

namespace ClaudeReviewBot.Core.Diffs;

/// <summary>Splits a unified diff of a whole pull request into files.</summary>
public static class DiffParser
{{
    /// <summary>Parses the output of `git diff` into one entry per file.</summary>
    public static IReadOnlyList<ChangedFile> Parse(string unifiedDiff)
    {{
        var files = new List<ChangedFile>();
        string? path = null;
        var body = new System.Text.StringBuilder();
        foreach (var line in unifiedDiff.Split('\\n'))
        {{
            if (line.StartsWith("diff --git ", StringComparison.Ordinal))
            {{
                Flush();
                path = line.Split(' ').Last()[2..];
                continue;
            }}
            body.AppendLine(line);
        }}
        Flush();
        return files;

        void Flush()
        {{
            if (path is null) return;
            files.Add(new ChangedFile(path, "modified", {member}: body.ToString()));
            body.Clear();
        }}
    }}
}}
"""

PROMPT_BUILDER = """\
using System.Text;
using ClaudeReviewBot.Core.Models;

namespace ClaudeReviewBot.Core.Review;

/// <summary>Builds the review prompt for one file.</summary>
public static class PromptBuilder
{{
    /// <summary>The prompt Claude reviews a single file from.</summary>
    public static string ForFile(ChangedFile file, string guidelines)
    {{
        var prompt = new StringBuilder();
        prompt.AppendLine("Review this change against the team's guidelines.");
        prompt.AppendLine(guidelines);
        prompt.AppendLine($"File: {{file.Path}} ({{file.Status}})");
        prompt.AppendLine("```diff");
        prompt.AppendLine(file.{member});
        prompt.AppendLine("```");
        return prompt.ToString();
    }}
}}
"""

# Built line by line so the left-over call site lands exactly on CALL_SITE_LINE.
_ORCHESTRATOR_HEAD = """\
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
{{
    /// <summary>Reviews one prompt and returns raw comment lines.</summary>
    Task<IReadOnlyList<string>> ReviewAsync(string prompt, CancellationToken cancellationToken);
}}

/// <summary>Options for a review run.</summary>
public sealed class ReviewOptions
{{
    /// <summary>Largest diff, in characters, sent for one file.</summary>
    public int MaxDiffChars {{ get; init; }} = 12_000;

    /// <summary>Paths never reviewed, such as lock files.</summary>
    public IReadOnlyList<string> Ignored {{ get; init; }} = ["package-lock.json", "*.Designer.cs"];

    /// <summary>The team's review guidelines, prepended to every prompt.</summary>
    public string Guidelines {{ get; init; }} = "";
}}

/// <summary>
/// Runs a review: parses the pull request's diff, skips what should not be reviewed,
/// asks the reviewer about each remaining file and collects the comments.
/// </summary>
public sealed class ReviewOrchestrator
{{
    private readonly IReviewer _reviewer;
    private readonly ReviewOptions _options;

    /// <summary>Creates an orchestrator around one reviewer.</summary>
    public ReviewOrchestrator(IReviewer reviewer, ReviewOptions options)
    {{
        _reviewer = reviewer;
        _options = options;
    }}

    /// <summary>Reviews every file of a unified diff.</summary>
    public async Task<IReadOnlyList<ReviewComment>> ReviewAsync(
        string unifiedDiff, CancellationToken cancellationToken = default)
    {{
        var comments = new List<ReviewComment>();
        var stopwatch = Stopwatch.StartNew();
        foreach (var file in DiffParser.Parse(unifiedDiff))
        {{
            cancellationToken.ThrowIfCancellationRequested();
            if (!ShouldReview(file))
            {{
                continue;
            }}

            var prompt = PromptBuilder.ForFile(file, _options.Guidelines);
            var lines = await _reviewer.ReviewAsync(prompt, cancellationToken);
            comments.AddRange(ToComments(file, lines));
        }}

        Trace.WriteLine($"Reviewed in {{stopwatch.ElapsedMilliseconds}} ms");
        return comments;
    }}

    private bool ShouldReview(ChangedFile file)
    {{
        if (!file.HasText)
        {{
            return false;
        }}

        foreach (var pattern in _options.Ignored)
        {{
            if (Matches(file.Path, pattern))
            {{
                return false;
            }}
        }}

        return file.{member}!.Length <= _options.MaxDiffChars;
    }}

    private static bool Matches(string path, string pattern)
    {{
        if (pattern.StartsWith('*'))
        {{
            return path.EndsWith(pattern[1..], StringComparison.OrdinalIgnoreCase);
        }}

        return string.Equals(Path.GetFileName(path), pattern, StringComparison.OrdinalIgnoreCase);
    }}

    private static IEnumerable<ReviewComment> ToComments(ChangedFile file, IReadOnlyList<string> lines)
    {{
        // Each reviewer line reads "LINE: text"; the line number points into the new file.
        foreach (var raw in lines)
        {{
            var colon = raw.IndexOf(':');
            if (colon <= 0 || !int.TryParse(raw[..colon], out var line))
            {{
                continue;
            }}

"""

_ORCHESTRATOR_TAIL = """\
            if (!LineIsInDiff(patchText, line))
            {{
                continue;
            }}

            yield return new ReviewComment(file.Path, line, raw[(colon + 1)..].Trim());
        }}
    }}

    private static bool LineIsInDiff(string? diff, int line)
    {{
        if (diff is null)
        {{
            return false;
        }}

        foreach (var hunk in diff.Split('\\n').Where(l => l.StartsWith("@@", StringComparison.Ordinal)))
        {{
            // "@@ -a,b +c,d @@": the new file's lines c .. c+d-1 are in the diff.
            var plus = hunk.Split(' ')[2].TrimStart('+').Split(',');
            var start = int.Parse(plus[0]);
            var count = plus.Length > 1 ? int.Parse(plus[1]) : 1;
            if (line >= start && line < start + count)
            {{
                return true;
            }}
        }}

        return false;
    }}
}}
"""

CLI_PROGRAM = """\
using ClaudeReviewBot.Core.Review;

// A thin wrapper: reads a diff from stdin and prints the comments the review produced.
var diff = await Console.In.ReadToEndAsync();
var options = new ReviewOptions {{ Guidelines = Environment.GetEnvironmentVariable("REVIEW_GUIDELINES") ?? "" }};
var orchestrator = new ReviewOrchestrator(new EchoReviewer(), options);
foreach (var comment in await orchestrator.ReviewAsync(diff))
{{
    Console.WriteLine($"{{comment.Path}}:{{comment.Line}}: {{comment.Body}}");
}}

internal sealed class EchoReviewer : IReviewer
{{
    public Task<IReadOnlyList<string>> ReviewAsync(string prompt, CancellationToken cancellationToken) =>
        Task.FromResult<IReadOnlyList<string>>(["1: looks fine"]);
}}
"""

TESTS_SOURCE = """\
using ClaudeReviewBot.Core.Diffs;
using ClaudeReviewBot.Core.Models;
using Xunit;

namespace ClaudeReviewBot.Core.Tests;

public class DiffParserTests
{{
    private const string TwoFiles = "diff --git a/a.cs b/a.cs\\n@@ -1,2 +1,3 @@\\n+x\\ndiff --git a/b.cs b/b.cs\\n@@ -4 +4 @@\\n-y\\n+z\\n";

    [Fact]
    public void SplitsOneEntryPerFile() => Assert.Equal(2, DiffParser.Parse(TwoFiles).Count);

    [Fact]
    public void FirstFileHasText() => Assert.True(DiffParser.Parse(TwoFiles)[0].HasText);

    [Fact]
    public void EmptyInputGivesNoFiles() => Assert.Empty(DiffParser.Parse(""));

    [Fact]
    public void BinaryFileHasNoText() => Assert.False(new ChangedFile("a.png", "added", null).HasText);
}}
"""

README = """\
# ClaudeReviewBot

Posts Claude's review comments on pull requests.

- `src/ClaudeReviewBot.Core`: diff parsing, prompts and the review itself.
- `src/ClaudeReviewBot.Cli`: a command-line wrapper around Core.
- `tests/ClaudeReviewBot.Core.Tests`: unit tests for Core.

Build with `dotnet build`, test with `dotnet test`.
"""

GITIGNORE = "bin/\nobj/\n*.user\n.vs/\n"


def orchestrator(member: str, left_over: bool) -> str:
    """ReviewOrchestrator.cs using `member`; `left_over` keeps the Friday call site on `.Patch`."""
    head = _ORCHESTRATOR_HEAD.format(member=member)
    statement = LEFT_OVER if left_over else f"var patchText = file.{member};"
    text = head + f"            {statement}\n" + _ORCHESTRATOR_TAIL.format()
    return text


def tree(member: str, left_over: bool = False) -> dict[str, str]:
    """Every file of the solution, path -> text, with ChangedFile's diff named `member`."""
    return {
        f"{SOLUTION_NAME}.sln": SLN,
        "README.md": README,
        ".gitignore": GITIGNORE,
        f"{CORE}/ClaudeReviewBot.Core.csproj": CORE_CSPROJ,
        f"{CORE}/Models/ChangedFile.cs": CHANGED_FILE.format(member=member),
        f"{CORE}/Diffs/DiffParser.cs": DIFF_PARSER.format(member=member),
        f"{CORE}/Review/PromptBuilder.cs": PROMPT_BUILDER.format(member=member),
        ORCHESTRATOR: orchestrator(member, left_over),
        f"{CLI}/ClaudeReviewBot.Cli.csproj": CLI_CSPROJ,
        f"{CLI}/Program.cs": CLI_PROGRAM.format(),
        f"{TESTS}/ClaudeReviewBot.Core.Tests.csproj": TESTS_CSPROJ,
        f"{TESTS}/DiffParserTests.cs": TESTS_SOURCE.format(member=member),
    }
