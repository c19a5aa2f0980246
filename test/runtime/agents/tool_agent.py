"""A minimal external agent: OpenAI chat completions over urllib, task tools via the
interception server's /tools route. Standard library only, as any harness program could be."""
import json
import os
import sys
import urllib.error
import urllib.request

BASE = os.environ["OPENAI_BASE_URL"]
KEY = os.environ["OPENAI_API_KEY"]


def post(path, body):
    req = urllib.request.Request(
        BASE + path,
        data=json.dumps(body).encode(),
        headers={"Authorization": "Bearer " + KEY, "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        return json.load(resp)


def main():
    if os.environ.get("AGENT_MODE") == "crash":
        sys.stderr.write("x" * 3000 + "agent crashed on purpose")
        sys.exit(3)
    messages = json.loads(os.environ["ENVROLL_PROMPT"])
    tools = json.loads(os.environ["ENVROLL_TOOLS"])
    while True:
        body = {"model": os.environ.get("ENVROLL_MODEL", "m"), "messages": messages, "temperature": 1.7}
        if tools:
            body["tools"] = tools
        try:
            reply = post("/chat/completions", body)
        except urllib.error.HTTPError as e:
            detail = e.read().decode()
            if e.code == 400 and "rollout stopped" in detail:
                print("stopped:", detail)
                return
            sys.stderr.write("HTTP %d: %s" % (e.code, detail))
            sys.exit(2)
        message = reply["choices"][0]["message"]
        messages.append(message)
        calls = message.get("tool_calls") or []
        if not calls:
            print("final:", message.get("content"))
            return
        for call in calls:
            args = json.loads(call["function"]["arguments"])
            out = post("/tools/" + call["function"]["name"], args)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": out["content"]})


main()
