"""An external agent for envroll's `command` harness: chat completions over urllib, the task's
tools over MCP with the official `mcp` client.

    harness.id = "command"
    harness.command = ["python3", "python/examples/mcp_agent.py"]

It reads what envroll puts in its environment: OPENAI_BASE_URL and OPENAI_API_KEY (the
interception endpoint and the rollout's secret), ENVROLL_MODEL, ENVROLL_PROMPT (the opening
messages) and ENVROLL_MCP_CONFIG ({"mcpServers": {name: {"url", "headers"}}}). Each server's
tools are offered to the model as <server>_<tool>, as Verifiers V1's agents name them.
"""
import asyncio
import json
import os
import sys
import urllib.error
import urllib.request
from contextlib import AsyncExitStack

from mcp import ClientSession
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client


def chat(body):
    req = urllib.request.Request(
        os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Authorization": "Bearer " + os.environ["OPENAI_API_KEY"], "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=1800) as resp:
        return json.load(resp)


async def connect(stack, config):
    """Opens one MCP session per server; returns (tool schemas, name -> (session, tool))."""
    schemas, route = [], {}
    for server, spec in config.get("mcpServers", {}).items():
        http = await stack.enter_async_context(create_mcp_http_client(headers=spec.get("headers") or None))
        read, write, *_ = await stack.enter_async_context(streamable_http_client(spec["url"], http_client=http))
        session = await stack.enter_async_context(ClientSession(read, write))
        await session.initialize()
        for tool in (await session.list_tools()).tools:
            name = f"{server}_{tool.name}"
            route[name] = (session, tool.name)
            # mcp 2.x names it input_schema; 1.x inputSchema.
            params = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {"type": "object"}
            schemas.append(
                {"type": "function", "function": {"name": name, "description": tool.description or "", "parameters": params}}
            )
    return schemas, route


def text_of(result):
    parts = [b.text if b.type == "text" else json.dumps(b.model_dump(mode="json")) for b in result.content]
    return "\n".join(parts) if parts else "[]"


async def main():
    config = json.loads(os.environ.get("ENVROLL_MCP_CONFIG") or "{}")
    messages = json.loads(os.environ["ENVROLL_PROMPT"])
    async with AsyncExitStack() as stack:
        tools, route = await connect(stack, config)
        while True:
            body = {"model": os.environ.get("ENVROLL_MODEL", "model"), "messages": messages}
            if tools:
                body["tools"] = tools
            try:
                reply = chat(body)
            except urllib.error.HTTPError as e:
                detail = e.read().decode()
                if e.code == 400 and "rollout stopped" in detail:
                    return  # a limit or stop condition ended the episode: a clean exit
                sys.exit(f"HTTP {e.code}: {detail}")
            message = reply["choices"][0]["message"]
            messages.append(message)
            if not message.get("tool_calls"):
                print(message.get("content") or "")
                return
            for call in message["tool_calls"]:
                name = call["function"]["name"]
                try:
                    args = json.loads(call["function"]["arguments"] or "{}")
                except json.JSONDecodeError as e:
                    content = f"error: invalid JSON in tool arguments ({e})"
                else:
                    if name in route:
                        session, tool = route[name]
                        content = text_of(await session.call_tool(tool, args))
                    else:
                        content = f"error: unknown tool {name!r}"
                messages.append({"role": "tool", "tool_call_id": call["id"], "content": content})


if __name__ == "__main__":
    asyncio.run(main())
