using ClaudeReviewBot.Core.Diffs;
using ClaudeReviewBot.Core.Models;
using Xunit;

namespace ClaudeReviewBot.Core.Tests;

public class DiffParserTests
{
    private const string TwoFiles = "diff --git a/a.cs b/a.cs\n@@ -1,2 +1,3 @@\n+x\ndiff --git a/b.cs b/b.cs\n@@ -4 +4 @@\n-y\n+z\n";

    [Fact]
    public void SplitsOneEntryPerFile() => Assert.Equal(2, DiffParser.Parse(TwoFiles).Count);

    [Fact]
    public void FirstFileHasText() => Assert.True(DiffParser.Parse(TwoFiles)[0].HasText);

    [Fact]
    public void EmptyInputGivesNoFiles() => Assert.Empty(DiffParser.Parse(""));

    [Fact]
    public void BinaryFileHasNoText() => Assert.False(new ChangedFile("a.png", "added", null).HasText);
}
