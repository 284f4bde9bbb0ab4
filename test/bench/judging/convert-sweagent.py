"""Converts a SWE-agent 0.x trajectory (*.traj: its `history`, the messages the
model saw) into the replay format (convert_common.py). Each assistant message
carries its action (a command SWE-agent ran in its bash session: a shell
command or one of its own commands, open, edit, search_dir...), which becomes
one `bash` call ({"command": action}); the message after it (the observation)
becomes its result. The demonstration and the issue, two user messages in a
row, become one first user message. Content is verbatim.
Usage: python3 convert-sweagent.py TRAJ.traj OUT.jsonl SLUG"""
import json
import sys

from convert_common import call, drop_unanswered, merge_users, write


def convert(history, slug):
    out = []
    n = 0
    pending = None
    for m in history:
        role, content = m["role"], m["content"]
        if pending is not None and role == "user":
            out.append({"role": "tool", "content": content, "tool_call_id": pending})
            pending = None
            continue
        line = {"role": role, "content": content}
        action = (m.get("action") or "").strip()
        # exit_cost / exit_context / exit_format: SWE-agent's own ending, not a command that ran.
        if role == "assistant" and action and not action.startswith("exit_"):
            n += 1
            pending = f"call_{slug}_{n:03d}"
            line["tool_calls"] = [call(pending, "bash", {"command": m["action"]})]
        out.append(line)
    return drop_unanswered(merge_users(out))


if __name__ == "__main__":
    src, dst, slug = sys.argv[1:4]
    with open(src) as f:
        data = json.load(f)
    write(convert(data["history"], slug), dst)
