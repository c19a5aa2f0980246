"""A tool-using agent on the official `anthropic` SDK (argv[1]: messages or messages-stream),
pointed at the interception server with ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY. Assistant
turns are echoed back whole (thinking blocks with their signatures, tool_use blocks)."""
import json
import os
import sys
import urllib.request

import anthropic

MODE = sys.argv[1]
client = anthropic.Anthropic(max_retries=0)
prompt = json.loads(os.environ["ENVROLL_PROMPT"])
tools = [
    {"name": t["function"]["name"], "description": t["function"]["description"], "input_schema": t["function"]["parameters"]}
    for t in json.loads(os.environ["ENVROLL_TOOLS"])
]


def run_tool(name, arguments):
    base = os.environ["OPENAI_BASE_URL"]
    req = urllib.request.Request(
        f"{base}/tools/{name}",
        data=json.dumps(arguments).encode(),
        headers={"authorization": f"Bearer {os.environ['OPENAI_API_KEY']}", "content-type": "application/json"},
    )
    with urllib.request.urlopen(req) as r:
        return json.load(r)["content"]


def main():
    system = next((m["content"] for m in prompt if m["role"] == "system"), None)
    messages = [{"role": m["role"], "content": m["content"]} for m in prompt if m["role"] != "system"]
    kwargs = dict(model="claude-x", max_tokens=256, tools=tools, metadata={"user_id": "envroll-test"})
    if system:
        kwargs["system"] = system
    n = client.messages.count_tokens(model="claude-x", messages=messages or [{"role": "user", "content": "."}])
    assert n.input_tokens > 0
    while True:
        if MODE == "messages-stream":
            with client.messages.stream(messages=messages, **kwargs) as stream:
                text = "".join(stream.text_stream)
                message = stream.get_final_message()
            assert text == "".join(b.text for b in message.content if b.type == "text")
        else:
            message = client.messages.create(messages=messages, **kwargs)
        messages.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in message.content]})
        calls = [b for b in message.content if b.type == "tool_use"]
        if message.stop_reason != "tool_use":
            return "".join(b.text for b in message.content if b.type == "text")
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": c.id, "content": run_tool(c.name, c.input)} for c in calls],
            }
        )


try:
    print(main())
except anthropic.BadRequestError as e:
    print(f"stopped: {e.message}", file=sys.stderr)
    sys.exit(2)
