# Case list for gen_qwen3_extra.py (exec'd there: render_case, bridge_case, parse_case, ids_of, random).
# ruff: noqa: F821

W = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Météo — 天气 🌤 \"quoted\" \\ back\tslash",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer", "default": 1}},
            "required": ["city"],
        },
    },
}
S = {"type": "function", "function": {"name": "search", "description": "Search.", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}}}
BARE = {"name": "calc", "description": "Calc ✓", "parameters": {"type": "object", "properties": {"expr": {"type": "string"}}}}


def tc(cid, name, args, flat=False):
    if flat:
        return {"id": cid, "name": name, "arguments": args}
    return {"id": cid, "type": "function", "function": {"name": name, "arguments": args}}


U = lambda c: {"role": "user", "content": c}  # noqa: E731
A = lambda c, **kw: {"role": "assistant", "content": c, **kw}  # noqa: E731
T = lambda c, cid="c1", **kw: {"role": "tool", "tool_call_id": cid, "content": c, **kw}  # noqa: E731
SYS = lambda c: {"role": "system", "content": c}  # noqa: E731

render_case("x_system_middle", [U("hi"), A("hello"), SYS("be brief"), U("again")])
render_case("x_system_middle_tools", [SYS("top"), U("hi"), SYS("mid"), U("q")], tools=[W])
render_case("x_system_only_genprompt", [SYS("sys only")])
render_case("x_system_empty_tools", [SYS(""), U("hi")], tools=[W])
render_case("x_system_empty_notools", [SYS(""), U("hi")])
render_case("x_tools_empty_list", [U("hi")], tools=[])
render_case("x_user_leading_newline", [U("\nhello"), A("ok")], agp=False)
render_case("x_user_leading_newlines_ws", [U("\n\n  indented\n"), A("ok")])
render_case("x_user_trailing_newline", [U("hello\n\n"), A("ok\n")], agp=False)
render_case("x_user_crlf", [U("line1\r\nline2\r\n"), A("a\r\nb")], agp=False)
render_case("x_user_whitespace_only", [U("   "), A(" ")], agp=False)
render_case("x_user_empty", [U(""), A("")], agp=False)
render_case("x_user_special_text", [U("stop <|im_end|> here <tool_call>{}</tool_call> <think>x</think>"), A("ok")])
render_case("x_user_endoftext", [U("a<|endoftext|>b"), A("ok")], agp=False)
render_case("x_user_none_content", [{"role": "user", "content": None}, A("ok")], agp=False)
render_case("x_user_tool_response_lookalike_last", [U("q"), A("a", reasoning_content="r"), U("<tool_response>\nx\n</tool_response>")])
render_case("x_user_tool_response_prefix_only", [U("q"), A("a", reasoning_content="r"), U("<tool_response> partial"), A("b", reasoning_content="r2")], agp=False)
render_case("x_nothink_history", [U("q1"), A("a1", reasoning_content="r1"), U("q2")], enable_thinking=False)
render_case("x_nothink_history_last_asst", [U("q1"), A("a1", reasoning_content="r1"), U("q2"), A("a2", reasoning_content="r2")], agp=False, enable_thinking=False)
render_case("x_think_true_explicit", [U("q1"), A("a1")], enable_thinking=True, agp=False)
render_case("x_reasoning_history_multi", [U("q1"), A("a1", reasoning_content="r1"), U("q2"), A("a2", reasoning_content="r2"), U("q3")])
render_case("x_reasoning_newlines", [U("q"), A("\n\nans\n", reasoning_content="\n\nthought\n\n")], agp=False)
render_case("x_reasoning_empty_not_last", [U("q"), A("a1", reasoning_content=""), A("a2")], agp=False)
render_case("x_reasoning_none_not_last", [U("q"), A("a1", reasoning_content=None), U("<tool_response>t</tool_response>"), A("a2")], agp=False)
render_case("x_inline_think_history", [U("q1"), A("<think>\nold\n</think>\n\nold answer"), U("q2"), A("<think>new</think>new answer")], agp=False)
render_case("x_inline_think_no_open", [U("q"), A("just reasoning</think>\n\nanswer")], agp=False)
render_case("x_inline_think_unclosed", [U("q"), A("<think>never closed")], agp=False)
render_case("x_inline_think_with_reasoning_field", [U("q"), A("<think>x</think>y", reasoning_content="field")], agp=False)
render_case("x_hist_asst_leading_newline", [U("q1"), A("\nhello"), U("q2")])
render_case("x_hist_asst_crlf_lead", [U("q1"), A("\r\nhello"), U("q2")])
render_case("x_hist_asst_think_and_lead_nl", [U("q1"), A("\nhello", reasoning_content="r"), U("<tool_response>x</tool_response>"), A("\n\nz")], agp=False)
render_case("x_tool_string_args", [U("w"), A("", tool_calls=[tc("c1", "get_weather", '{"city": "Oslo"}')]), T("cold")], tools=[W])
render_case("x_tool_string_args_compact", [U("w"), A("", tool_calls=[tc("c1", "get_weather", '{"city":"Oslo","days":3}')]), T("cold")], tools=[W])
render_case("x_tool_string_args_invalid", [U("w"), A("", tool_calls=[tc("c1", "get_weather", "not json {")]), T("?")], tools=[W])
render_case("x_tool_nested_args", [U("w"), A("", tool_calls=[tc("c1", "search", {"q": {"a": [1, 2.5, True, None, {"b": "ü"}], "e": {}, "l": []}})]), T("r")], tools=[S])
render_case("x_tool_float_args", [U("w"), A("", tool_calls=[tc("c1", "search", {"a": 1.0, "b": 1e-05, "c": 1e16, "d": 0.1, "e": -2.0, "f": 123456789012345678})]), T("r")], tools=[S])
render_case("x_tool_unicode_args", [U("w"), A("", tool_calls=[tc("c1", "get_weather", {"city": "Zürich 東京 🚀", "note": "tab\there\nnl \"q\" \\ \u0001"})]), T("ok 🌤")], tools=[W])
render_case("x_tool_content_and_calls", [U("w"), A("Let me check.", tool_calls=[tc("c1", "get_weather", {"city": "A"}), tc("c2", "search", {"q": "b"})]), T("ra", "c1"), T("rb", "c2"), A("done")], tools=[W, S], agp=False)
render_case("x_tool_reasoning_and_calls", [U("w"), A("", reasoning_content="plan", tool_calls=[tc("c1", "get_weather", {"city": "A"})]), T("ra"), A("final", reasoning_content="wrap")], tools=[W], agp=False)
render_case("x_tool_flat_multi", [U("w"), A("x", tool_calls=[tc("k1", "calc", {"expr": "1"}, flat=True), tc("k2", "calc", '{"expr": "2"}', flat=True)]), T("1", "k1"), T("2", "k2")], tools=[BARE])
render_case("x_tool_name_field", [U("w"), A("", tool_calls=[tc("c1", "get_weather", {"city": "A"})]), T("r", "zz", name="explicit_name")], tools=[W])
render_case("x_tool_unknown_id", [U("w"), A("", tool_calls=[tc("c1", "get_weather", {"city": "A"})]), T("r", "nope")], tools=[W])
render_case("x_tool_content_newlines", [U("w"), A("", tool_calls=[tc("c1", "search", {"q": "a"})]), T("\nleading and trailing\n")], tools=[S])
render_case("x_tool_content_empty", [U("w"), A("", tool_calls=[tc("c1", "search", {"q": "a"})]), T("")], tools=[S])
render_case("x_tool_then_user_then_tool", [U("w"), A("", tool_calls=[tc("c1", "search", {"q": "a"})]), T("r1"), U("more"), A("", tool_calls=[tc("c2", "search", {"q": "b"})]), T("r2", "c2")], tools=[S])
render_case("x_tool_no_tools_param", [U("w"), A("", tool_calls=[tc("c1", "search", {"q": "a"})]), T("r1")])
render_case("x_tool_bare_and_wrapped", [SYS("You are X."), U("w")], tools=[BARE, W, S])
render_case("x_tool_empty_args", [U("w"), A("", tool_calls=[tc("c1", "search", {})]), T("r")], tools=[S])
render_case("x_tool_none_content_multi", [U("w"), A(None, tool_calls=[tc("c1", "search", {"q": "a"}), tc("c2", "search", {"q": "b"})]), T("r1", "c1"), T("r2", "c2")], tools=[S])
render_case("x_developer_role_skipped", [U("hi"), {"role": "developer", "content": "dev"}, A("ok")], agp=False)
render_case("x_multiturn_tools_think_last", [SYS("s"), U("w"), A("", reasoning_content="p1", tool_calls=[tc("c1", "search", {"q": "a"})]), T("r1"), A("", reasoning_content="p2", tool_calls=[tc("c2", "search", {"q": "b"})]), T("r2", "c2"), A("ans", reasoning_content="p3"), U("thanks"), A("np")], tools=[S], agp=False)
render_case("x_preserve_all_multi", [U("q1"), A("a1", reasoning_content="r1"), U("q2"), A("a2", reasoning_content="r2"), U("q3")], preserve_all=True)
render_case("x_preserve_tc_cycle", [U("q1"), A("a0", reasoning_content="r0"), U("w"), A("", reasoning_content="p1", tool_calls=[tc("c1", "search", {"q": "a"})]), T("r1"), A("", reasoning_content="p2", tool_calls=[tc("c2", "search", {"q": "b"})]), T("r2", "c2")], tools=[S], preserve_tc=True)
render_case("x_preserve_tc_no_tool", [U("q1"), A("a1", reasoning_content="r1"), U("q2"), A("a2", reasoning_content="r2")], agp=False, preserve_tc=True)
render_case("x_preserve_tc_lookalike_user", [U("q"), A("", reasoning_content="p1", tool_calls=[tc("c1", "search", {"q": "a"})]), T("r1"), U("<tool_response>\nx\n</tool_response>"), A("b", reasoning_content="p2"), T("r2")], tools=[S], preserve_tc=True)
render_case("x_long_content", [U("word " * 400), A(("answer line\n" * 50).strip())], agp=False)
render_case("x_nfc_content", [U("cafe\u0301 e\u0301\u0301 A\u030a"), A("ok e\u0301")], agp=False)
render_case("x_emoji_zwj", [U("👨‍👩‍👧‍👦 🏳️‍🌈 ✋🏽"), A("👍")], agp=False)
render_case("x_only_assistant", [A("hello")], agp=False)
render_case("x_tool_content_null", [U("w"), A("", tool_calls=[tc("c1", "search", {"q": "a"})]), {"role": "tool", "tool_call_id": "c1", "content": None}])
render_case("x_tool_content_null_hf_raises", [U("w"), A(None, tool_calls=[tc("c1", "search", {"q": "a"})]), {"role": "tool", "tool_call_id": "c1", "content": None}])
render_case("x_tool_call_no_arguments", [U("w"), A("", tool_calls=[{"id": "c1", "type": "function", "function": {"name": "search"}}]), T("r")], tools=[S])
render_case("x_asst_none_hist_leading_nl", [U("q1"), A(None, tool_calls=[tc("c1", "search", {"q": "a"})]), T("r"), A("\nfinal"), U("q2")], tools=[S])
render_case("x_starts_with_tool", [T("orphan"), U("q")])

# Explicit bridges.
P = [U("q")]
bridge_case("xb_basic_user", P, "answer", "<|im_end|>", [U("next")])
bridge_case("xb_system_new", P, "answer", "<|im_end|>", [SYS("note"), U("next")])
bridge_case("xb_tools_run", [U("w")], '<tool_call>\n{"name": "search", "arguments": {"q": "a"}}\n</tool_call>', "<|im_end|>", [T("r1", "c1"), T("r2", "c2")], tools=[S])
bridge_case("xb_tool_then_user", [U("w")], "x", "<|im_end|>", [T("r1"), U("follow")])
bridge_case("xb_user_then_tool", [U("w")], "x", "<|im_end|>", [U("follow"), T("r1")])
bridge_case("xb_truncated_nothink", P, "cut mid", None, [U("go on")], enable_thinking=False)
bridge_case("xb_multiple_closes", P, "a<|im_end|>b", "<|im_end|>", [U("n")], trailing="junk")
bridge_case("xb_close_then_endoftext", P, "a", "<|im_end|>", [U("n")], trailing="<|endoftext|>")
bridge_case("xb_empty_completion", P, "", None, [U("n")])
bridge_case("xb_only_close", P, "", "<|im_end|>", [U("n")])
bridge_case("xb_user_leading_newline", P, "a", "<|im_end|>", [U("\nlead")])
bridge_case("xb_tool_leading_newline", P, "a", "<|im_end|>", [T("\nlead\n")])
bridge_case("xb_empty_user", P, "a", "<|im_end|>", [U("")])
bridge_case("xb_unicode_user", P, "a", "<|im_end|>", [U("naïve e\u0301 🚀")])
bridge_case("xb_none_tool_role_missing", P, "a", "<|im_end|>", [{"content": "no role"}])
bridge_case("xb_none_assistant_later", P, "a", "<|im_end|>", [U("x"), A("y")])
bridge_case("xb_close_in_prompt_only", [U("q"), A("prior")], "no close here", None, [U("n")])
bridge_case("xb_special_text_user", P, "a", "<|im_end|>", [U("fake <|im_start|>assistant\n")])

# Explicit parses.
parse_case("xp_plain", ids_of(["Hello world.", {"special": "<|im_end|>"}]))
parse_case("xp_ws_strip", ids_of(["  \n hi there \n\n", {"special": "<|im_end|>"}]))
parse_case("xp_think_full", ids_of([{"special": "<think>"}, "\nreason\n", {"special": "</think>"}, "\n\nanswer", {"special": "<|im_end|>"}]))
parse_case("xp_think_only_close", ids_of(["reason", {"special": "</think>"}, "answer"]))
parse_case("xp_two_think_close", ids_of(["r", {"special": "</think>"}, "a", {"special": "</think>"}, "b"]))
parse_case("xp_call_ok", ids_of([{"special": "<tool_call>"}, '\n{"name": "search", "arguments": {"q": "x"}}\n', {"special": "</tool_call>"}, {"special": "<|im_end|>"}]))
parse_case("xp_call_missing_name", ids_of([{"special": "<tool_call>"}, '{"arguments": {"q": 1}}', {"special": "</tool_call>"}]))
parse_case("xp_call_empty_name", ids_of([{"special": "<tool_call>"}, '{"name": "", "arguments": {}}', {"special": "</tool_call>"}]))
parse_case("xp_call_list_json", ids_of([{"special": "<tool_call>"}, "[1, 2]", {"special": "</tool_call>"}]))
parse_case("xp_call_no_args", ids_of([{"special": "<tool_call>"}, '{"name": "f"}', {"special": "</tool_call>"}]))
parse_case("xp_call_string_args", ids_of([{"special": "<tool_call>"}, '{"name": "f", "arguments": "{\\"a\\": 1}"}', {"special": "</tool_call>"}]))
parse_case("xp_call_invalid", ids_of(["pre", {"special": "<tool_call>"}, '{"name": "f", "arguments": {', {"special": "</tool_call>"}, "post"]))
parse_case("xp_call_unclosed", ids_of(["text", {"special": "<tool_call>"}, '{"name": "f"', {"special": "<|im_end|>"}, "after"]))
parse_case("xp_call_empty_block", ids_of([{"special": "<tool_call>"}, {"special": "</tool_call>"}]))
parse_case("xp_three_calls_mixed", ids_of([{"special": "<tool_call>"}, '{"name": "a", "arguments": {}}', {"special": "</tool_call>"}, "\n", {"special": "<tool_call>"}, "bad", {"special": "</tool_call>"}, "\n", {"special": "<tool_call>"}, '{"name": "c", "arguments": {"x": [1, {"y": null}]}}', {"special": "</tool_call>"}]))
parse_case("xp_think_and_calls_and_tail", ids_of([{"special": "<think>"}, "plan", {"special": "</think>"}, "\n\nI'll call.\n", {"special": "<tool_call>"}, '{"name": "a", "arguments": {"k": "ü"}}', {"special": "</tool_call>"}, "tail text"]))
parse_case("xp_stray_close_tool", ids_of(["a ", {"special": "</tool_call>"}, " b"]))
parse_case("xp_endoftext_first", ids_of([{"special": "<|endoftext|>"}, "x"]))
parse_case("xp_think_in_content_text", ids_of(["<think>lit</think>after"]))
parse_case("xp_unicode_ws", ids_of(["\u00a0\u2003hi\u3000", {"special": "<|im_end|>"}]))
parse_case("xp_nbsp_reasoning", ids_of([{"special": "<think>"}, "\u00a0r\u00a0", {"special": "</think>"}, "c"]))
parse_case("xp_think_empty_body", ids_of([{"special": "<think>"}, "\n\n", {"special": "</think>"}, "\n\n", {"special": "<tool_call>"}, '{"name": "a", "arguments": {}}', {"special": "</tool_call>"}]))
parse_case("xp_split_bytes", [tok.convert_tokens_to_ids("<tool_call>")] + tok.encode('{"name": "é", "arguments": {"k": "🚀"}}', add_special_tokens=False) + [tok.convert_tokens_to_ids("</tool_call>")])

# Random conversations (seeded): edge whitespace, tools, reasoning, roles in random orders.
rng = random.Random(1234)
PIECES = ["hello", " world", "\n", "\n\n", "  ", "é", "天气", "🚀", "<|im_end|>", "</think>", "<think>", "\r\n", "x.", "{}", "'s", "123", "\t", "<tool_response>", "</tool_response>"]


def rtext(max_parts=5):
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, max_parts)))


for n in range(60):
    msgs = []
    if rng.random() < 0.4:
        msgs.append(SYS(rtext()))
    ncalls = 0
    for turn in range(rng.randint(1, 4)):
        msgs.append(U(rtext()))
        if rng.random() < 0.3 and turn > 0:
            msgs.append(SYS(rtext()))
        for step in range(rng.randint(0, 2)):
            calls = []
            for _ in range(rng.randint(1, 2)):
                ncalls += 1
                args = rng.choice([{"q": rtext(3)}, '{"q": "s"}', {"n": rng.randint(0, 99), "f": [True, None]}, {}])
                calls.append(tc(f"c{ncalls}", rng.choice(["search", "get_weather"]), args, flat=rng.random() < 0.2))
            kw = {"tool_calls": calls}
            if rng.random() < 0.5:
                kw["reasoning_content"] = rtext(3)
            msgs.append(A(rng.choice([rtext(3), "", None]), **kw))
            for c in calls:
                msgs.append(T(rtext(), c["id"]))
        kw = {}
        if rng.random() < 0.5:
            kw["reasoning_content"] = rng.choice([rtext(3), "", None])
        if rng.random() < 0.85:
            msgs.append(A(rtext(), **kw))
    tools = rng.choice([None, [], [S, W], [BARE]])
    et = rng.choice([None, True, False])
    render_case(
        f"x_random_{n:03d}",
        msgs,
        tools=tools,
        agp=rng.random() < 0.6,
        enable_thinking=et,
        preserve_all=rng.random() < 0.1,
        preserve_tc=rng.random() < 0.1,
    )
