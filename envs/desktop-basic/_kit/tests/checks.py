"""Shared by the desktop-basic graders: each check prints [PASS]/[FAIL] with what it saw; reward() writes the
fraction of checks passed (1 only when all pass) to the verifier's reward.txt."""
import os

results = []


def check(ok, what, seen=None):
    results.append(bool(ok))
    print(("[PASS] " if ok else "[FAIL] ") + what + ("" if seen is None else " — saw " + repr(seen)))


def reward():
    out = os.environ.get("OPENFORGE_VERIFIER_DIR", "/logs/verifier")
    value = 1 if results and all(results) else 0
    print("reward %d (%d/%d)" % (value, sum(results), len(results)))
    with open(os.path.join(out, "reward.txt"), "w") as f:
        f.write("%d\n" % value)
