"""Builds the judging set (trajectories/) from the two public sources, read
from their git objects at the commits named in README.md, by a rule fixed
before any run:
 - SWE-agent 0.x on Multi-SWE-bench (Java): of the trajectories of the five
   runs, those whose history has at least 60 messages and 100,000 to
   2,000,000 characters, ordered by the SHA-1 of "<run>/<file>", the first 25;
 - Agent Data Protocol samples: every session of the three coding-agent
   folders (SWE-Gym's OpenHands + GPT-4o, SWE-Play's OpenHands, SWE-smith's
   SWE-agent 1.x + Claude).
Usage: python3 build.py MULTI_SWE_BENCH_EXPERIMENTS_GIT_DIR AGENT_DATA_PROTOCOL_GIT_DIR"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "trajectories")
SWE_AGENT_COMMIT = "89888f1604001fcd80b0799a37af42a1bfebfd8f"
SWE_AGENT_RUNS = "evaluation/java/verified"
ADP_COMMIT = "df5b5adc3b61adbe0a0cc250d56a781cbffc867e"
# folder in the ADP repository -> file prefix here
ADP_FOLDERS = {
    "swe-gym_openhands_sampled_trajectories": "openhands-gpt4o",
    "swe-play-trajectories": "openhands-sweplay",
    "swe-smith": "sweagent1-claude",
}
SWE_AGENT_TAKE = 25
MIN_MESSAGES = 60
MIN_CHARS, MAX_CHARS = 100_000, 2_000_000


def git(gitdir, *args):
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True, capture_output=True).stdout


def swe_agent(gitdir):
    paths = git(gitdir, "ls-tree", "-r", "--name-only", SWE_AGENT_COMMIT, SWE_AGENT_RUNS).decode().split()
    candidates = []
    for p in paths:
        if not p.endswith(".traj"):
            continue
        data = git(gitdir, "show", f"{SWE_AGENT_COMMIT}:{p}")
        history = json.loads(data)["history"]
        chars = sum(len(m["content"]) for m in history)
        if len(history) >= MIN_MESSAGES and MIN_CHARS <= chars <= MAX_CHARS:
            run, name = p.split("/")[-3], p.split("/")[-1]
            candidates.append((hashlib.sha1(f"{run}/{name}".encode()).hexdigest(), run, name, data))
    candidates.sort()
    for _, run, name, data in candidates[:SWE_AGENT_TAKE]:
        model = run.split("SWE-agent_", 1)[1]
        slug = f"sweagent-{model}__{name[: -len('.traj')]}"
        with tempfile.NamedTemporaryFile("wb", suffix=".traj") as f:
            f.write(data)
            f.flush()
            subprocess.run([sys.executable, os.path.join(HERE, "convert-sweagent.py"), f.name, os.path.join(OUT, slug + ".jsonl"), slug], check=True)
    return len(candidates)


def adp(gitdir):
    for folder, prefix in ADP_FOLDERS.items():
        data = git(gitdir, "show", f"{ADP_COMMIT}:datasets/{folder}/sample_raw.json")
        with tempfile.NamedTemporaryFile("wb", suffix=".json") as f:
            f.write(data)
            f.flush()
            subprocess.run([sys.executable, os.path.join(HERE, "convert-adp.py"), f.name, OUT, prefix], check=True)


if __name__ == "__main__":
    swe_agent_dir, adp_dir = sys.argv[1:3]
    os.makedirs(OUT, exist_ok=True)
    n = swe_agent(swe_agent_dir)
    adp(adp_dir)
    print(f"SWE-agent: {n} trajectories met the rule, {min(n, SWE_AGENT_TAKE)} taken")
