"""A tool-using agent on the official `openai` SDK, in one of four modes (argv[1]):
chat, chat-stream, responses, responses-stream. It runs the task's tools through the
interception server's tools route and loops until the model answers without a call, echoing
every output item (reasoning included) back as the next request's history."""
import json
import os
import sys
import urllib.request

import openai

MODE = sys.argv[1]
BASE = os.environ["OPENAI_BASE_URL"]
KEY = os.environ["OPENAI_API_KEY"]
client = openai.OpenAI(base_url=BASE, api_key=KEY, max_retries=0)
prompt = json.loads(os.environ["ENVROLL_PROMPT"])
tools = json.loads(os.environ["ENVROLL_TOOLS"])


def run_tool(name, arguments):
    req = urllib.request.Request(
        f"{BASE}/tools/{name}",
        data=arguments.encode(),
        headers={"authorization": f"Bearer {KEY}", "content-type": "application/json"},
    )
    with urllib.request.urlopen(req) as r:
        return json.load(r)["content"]


def chat():
    messages = list(prompt)
    while True:
        if MODE == "chat-stream":
            with client.chat.completions.stream(
                model="m", messages=messages, tools=tools or openai.NOT_GIVEN, temperature=1.7
            ) as stream:
                for _ in stream:
                    pass
                completion = stream.get_final_completion()
        else:
            completion = client.chat.completions.create(
                model="m", messages=messages, tools=tools or openai.NOT_GIVEN, temperature=1.7
            )
        message = completion.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content
        for call in message.tool_calls:
            content = run_tool(call.function.name, call.function.arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})


def responses():
    instructions = next((m["content"] for m in prompt if m["role"] == "system"), None)
    items = [{"role": m["role"], "content": m["content"]} for m in prompt if m["role"] != "system"]
    fn_tools = [{"type": "function", **t["function"]} for t in tools]
    while True:
        kwargs = dict(model="m", input=items, tools=fn_tools, store=False)
        if instructions:
            kwargs["instructions"] = instructions
        if MODE == "responses-stream":
            with client.responses.stream(**kwargs) as stream:
                deltas = "".join(e.delta for e in stream if e.type == "response.output_text.delta")
                response = stream.get_final_response()
            assert deltas == response.output_text, (deltas, response.output_text)
        else:
            response = client.responses.create(**kwargs)
        items += [item.model_dump(exclude_none=True) for item in response.output]
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            return response.output_text
        for call in calls:
            items.append(
                {"type": "function_call_output", "call_id": call.call_id, "output": run_tool(call.name, call.arguments)}
            )


try:
    print(chat() if MODE.startswith("chat") else responses())
except openai.BadRequestError as e:
    # A refusal ("rollout stopped: …") ends the program's loop, as a stop condition should.
    print(f"stopped: {e.message}", file=sys.stderr)
    sys.exit(2)
