"""Converts a mini-swe-agent trajectory (*.traj.json) into the replay format of
the trajectories README: one message per line; an assistant message with
exactly one bash block gets one `bash` call, and the message after it (the
observation, a timeout notice or the submitted diff) becomes its tool result.
Usage: python3 convert.py TRAJ.json OUT.jsonl INSTANCE"""
import json
import re
import sys

BLOCK = re.compile(r"```bash\s*\n(.*?)\n```", re.S)


def convert(messages, instance):
    out = []
    n = 0
    pending = None
    for m in messages:
        role, content = m["role"], m["content"]
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content)
        if pending is not None and role == "user":
            out.append({"role": "tool", "content": content, "tool_call_id": pending})
            pending = None
            continue
        line = {"role": role, "content": content}
        if role == "assistant":
            blocks = BLOCK.findall(content)
            if len(blocks) == 1:
                n += 1
                pending = f"call_syn_{instance}_{n:03d}"
                line["tool_calls"] = [{"id": pending, "name": "bash", "arguments": json.dumps({"command": blocks[0]}, ensure_ascii=False)}]
        out.append(line)
    if pending is not None:
        # A call without a result: the recording ends before it ran.
        out[-1].pop("tool_calls")
    return out


if __name__ == "__main__":
    src, dst, instance = sys.argv[1:4]
    with open(src) as f:
        data = json.load(f)
    with open(dst, "w") as f:
        for line in convert(data["messages"], instance):
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
