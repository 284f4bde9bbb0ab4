"""Shared by the judging set's converters: the replay format of the
trajectories README (one message per line; an assistant message's tool calls
carry ids; every call has exactly one result, right after it), and the checks
every converted file passes before it is written."""
import json
import re

# OpenHands' and SWE-agent 1.x's calls written in plain text (their non-native
# function calling): <function=NAME><parameter=KEY>VALUE</parameter>...</function>.
# The closing tag may be missing at the very end of a message.
FUNCTION = re.compile(r"<function=([\w.-]+)>(.*?)(?:</function>|$)", re.S)
PARAMETER = re.compile(r"<parameter=([\w.-]+)>\n?(.*?)\n?</parameter>", re.S)


def text_calls(content):
    """The calls written in an assistant message's text, as (name, arguments)."""
    return [(name, {k: v for k, v in PARAMETER.findall(body)}) for name, body in FUNCTION.findall(content)]


def call(call_id, name, arguments):
    """One tool call in the replay format (arguments: a JSON object as a string)."""
    if isinstance(arguments, str):
        json.loads(arguments)  # must parse: the replay model reads it back
        text = arguments
    else:
        text = json.dumps(arguments, ensure_ascii=False)
    return {"id": call_id, "name": name, "arguments": text}


def merge_users(lines):
    """Consecutive user messages become one (blank line between): the replay
    model starts from the first user message and then expects the assistant."""
    out = []
    for line in lines:
        if out and line["role"] == "user" and out[-1]["role"] == "user" and "tool_calls" not in out[-1]:
            out[-1] = {"role": "user", "content": out[-1]["content"] + "\n\n" + line["content"]}
        else:
            out.append(line)
    return out


def drop_unanswered(lines):
    """An assistant message whose calls got no result (the recording ends
    first) keeps its text and loses its calls."""
    for i, line in enumerate(lines):
        calls = line.get("tool_calls")
        if not calls:
            continue
        answered = set()
        for after in lines[i + 1:]:
            if after["role"] != "tool":
                break
            answered.add(after["tool_call_id"])
        if answered != {c["id"] for c in calls}:
            line.pop("tool_calls")
    return lines


def check(lines, name):
    """Refuses a file the replay would misread: roles, ids unique, every call
    answered exactly once right after it, no result without its call."""
    if not lines or lines[0]["role"] not in ("system", "user"):
        raise ValueError(f"{name}: must start with a system or user message")
    if not any(l["role"] == "user" for l in lines):
        raise ValueError(f"{name}: no user message")
    seen = set()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line["role"] not in ("system", "user", "assistant", "tool") or not isinstance(line["content"], str):
            raise ValueError(f"{name}: line {i + 1}: bad role or content")
        if line["role"] == "tool":
            raise ValueError(f"{name}: line {i + 1}: a tool result without its call")
        calls = line.get("tool_calls") or []
        ids = [c["id"] for c in calls]
        if set(ids) & seen or len(set(ids)) != len(ids):
            raise ValueError(f"{name}: line {i + 1}: a tool-call id used twice")
        seen.update(ids)
        for c in calls:
            json.loads(c["arguments"])
        results = []
        while i + 1 < len(lines) and lines[i + 1]["role"] == "tool":
            i += 1
            results.append(lines[i]["tool_call_id"])
        if sorted(results) != sorted(ids):
            raise ValueError(f"{name}: line {i + 1}: the calls {ids} got the results {results}")
        i += 1


def write(lines, path):
    check(lines, path)
    with open(path, "w") as f:
        for line in lines:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
