"""A task's V1 toolsets (`Task.tools`: `vf.Toolset` classes with `@vf.tool` methods), served from
the host. V1 runs each as a FastMCP server; here the same classes are instantiated per rollout
and each tool is wrapped by FastMCP's own `Tool.from_function`, so the model sees the schema
FastMCP would advertise and arguments are validated as FastMCP validates them.
"""

from __future__ import annotations

import json


def _fastmcp_tool(fn, name: str):
    from mcp.server.fastmcp.tools import Tool

    return Tool.from_function(fn, name=name, description=(fn.__doc__ or "").strip() or None)


def _tools(server) -> list[tuple[str, object]]:
    from verifiers.v1.decorators import discover_decorated

    return [(getattr(fn, "tool_name", None) or fn.__name__, fn) for fn in discover_decorated(server, "tool")]


def describe(task_cls, taskset_cls=None) -> list[dict]:
    """Each declared toolset's server name and tools (name, description, JSON schema): the task's
    (one instance per rollout) and the taskset's shared ones (`shared`: one per loaded taskset)."""
    out = []
    declared = [(c, False) for c in getattr(task_cls, "tools", ())]
    declared += [(c, True) for c in getattr(taskset_cls, "tools", ())]
    for cls, shared in declared:
        server = cls(cls._config_cls()())
        tools = []
        for name, fn in _tools(server):
            t = _fastmcp_tool(fn, name)
            tools.append({"name": name, "description": t.description or "", "parameters": t.parameters})
        out.append({"server": server.server_name, "tools": tools, "shared": shared})
    return out


async def open_servers(task, state) -> dict:
    """The rollout's toolset instances by server name, set up for its task (V1's setup order)."""
    from verifiers.v1.mcp.server import _call_state

    servers = {}
    token = _call_state.set(state)
    try:
        for server in task.tool_servers():
            await server.setup()
            await server.setup_task(task.data)
            servers[server.server_name] = server
    finally:
        _call_state.reset(token)
    return servers


async def open_shared(taskset) -> dict:
    """A taskset's shared toolsets (V1: one per worker, `setup` only, no task); each call runs with
    the calling rollout's state, as V1 passes each call its rollout's state channel."""
    servers = {}
    for server in taskset.tool_servers():
        await server.setup()
        servers[server.server_name] = server
    return servers


async def call(servers: dict, state, server: str, tool: str, args: dict) -> str:
    from verifiers.v1.mcp.server import _call_state

    inst = servers.get(server)
    if inst is None:
        raise KeyError(f"no toolset {server!r} in this rollout (has {sorted(servers)})")
    fn = dict(_tools(inst)).get(tool)
    if fn is None:
        raise KeyError(f"toolset {server!r} has no tool {tool!r}")
    token = _call_state.set(state)
    try:
        result = await _fastmcp_tool(fn, tool).run(args)
    finally:
        _call_state.reset(token)
    return result if isinstance(result, str) else json.dumps(result)
