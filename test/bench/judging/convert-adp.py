"""Converts the sample trajectories of the Agent Data Protocol repository
(datasets/*/sample_raw.json: a JSON list of sessions, each with `messages`)
into the replay format (convert_common.py). Two shapes:
 - native tool calls (SWE-Gym's OpenHands + GPT-4o): assistant messages with
   `tool_calls` ({id, function: {name, arguments}}) and `tool` results with
   `tool_call_id`; kept as they are;
 - calls written in text (OpenHands' and SWE-agent 1.x's non-native function
   calling, `<function=NAME><parameter=K>V</parameter></function>`): an
   assistant message with exactly one such block gets that call (id made up),
   and the user message after it (the EXECUTION RESULT / OBSERVATION) becomes
   its result.
Content is verbatim; user messages in a row become one.
Usage: python3 convert-adp.py SAMPLE_RAW.json OUTDIR PREFIX
(writes OUTDIR/PREFIX__<session id>.jsonl for every session)"""
import json
import os
import re
import sys

from convert_common import call, drop_unanswered, merge_users, text_calls, write


def session_id(record, index):
    raw = record.get("id") or record.get("traj_id") or record.get("instance_id") or str(index)
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", raw)


def convert(messages, slug):
    out = []
    n = 0
    pending = None
    for m in messages:
        role, content = m["role"], m.get("content") or ""
        if role == "tool":
            out.append({"role": "tool", "content": content, "tool_call_id": m["tool_call_id"]})
            continue
        if pending is not None and role == "user":
            out.append({"role": "tool", "content": content, "tool_call_id": pending})
            pending = None
            continue
        pending = None
        line = {"role": role, "content": content}
        if role == "assistant":
            native = m.get("tool_calls") or []
            if native:
                line["tool_calls"] = [call(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in native]
            else:
                calls = text_calls(content)
                if len(calls) == 1:
                    n += 1
                    pending = f"call_{slug}_{n:03d}"
                    line["tool_calls"] = [call(pending, calls[0][0], calls[0][1])]
        out.append(line)
    return drop_unanswered(merge_users(out))


if __name__ == "__main__":
    src, outdir, prefix = sys.argv[1:4]
    with open(src) as f:
        records = json.load(f)
    for i, record in enumerate(records):
        sid = session_id(record, i)
        write(convert(record["messages"], sid), os.path.join(outdir, f"{prefix}__{sid}.jsonl"))
