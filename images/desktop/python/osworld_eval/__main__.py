"""python3 -m osworld_eval <evaluator.json | task.json>: scores the task and writes reward.txt (and reward.json with details)."""
import json
import os
import sys

from .runner import evaluate


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: python3 -m osworld_eval <evaluator.json or OSWorld task.json>\n")
        return 2
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    evaluator = doc.get("evaluator", doc)
    out = os.environ.get("OPENFORGE_VERIFIER_DIR", "/logs/verifier")
    score = evaluate(evaluator)
    print("osworld_eval: %s -> %s" % (evaluator["func"], score))
    with open(os.path.join(out, "reward.json"), "w") as f:
        json.dump({"reward": score, "func": evaluator["func"]}, f)
    return 0


sys.exit(main())
