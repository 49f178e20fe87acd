using ClaudeReviewBot.Core.Review;

// A thin wrapper: reads a diff from stdin and prints the comments the review produced.
var diff = await Console.In.ReadToEndAsync();
var options = new ReviewOptions { Guidelines = Environment.GetEnvironmentVariable("REVIEW_GUIDELINES") ?? "" };
var orchestrator = new ReviewOrchestrator(new EchoReviewer(), options);
foreach (var comment in await orchestrator.ReviewAsync(diff))
{
    Console.WriteLine($"{comment.Path}:{comment.Line}: {comment.Body}");
}

internal sealed class EchoReviewer : IReviewer
{
    public Task<IReadOnlyList<string>> ReviewAsync(string prompt, CancellationToken cancellationToken) =>
        Task.FromResult<IReadOnlyList<string>>(["1: looks fine"]);
}
