"""The Claude double: the Messages API served over real HTTP on 127.0.0.1, for the real SDK.

server.py the server and its queue of replies (start here), request.py a recorded request,
rules.py what it refuses as the API does (each rule names its doc page), history.py and
context.py the rules about replayed history and context management, script.py the replies
a test queues, wire.py how a reply goes out as SSE (pings, held tool input, errors).
"""
