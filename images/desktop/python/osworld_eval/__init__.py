"""The subset of OSWorld's evaluator model that runs offline inside the desktop image.

A task's evaluator (OSWorld's task JSON `evaluator` object: postconfig, func, conj, result, expected,
options) is run by `python3 -m osworld_eval <evaluator.json>`: postconfig steps, then for each metric
`metrics.<func>(getters.<result type>(cfg), getters.<expected type>(cfg), **options)`, combined as OSWorld
does (`and`: 0 at the first 0, else the mean; `or`: 1 at the first 1, else the max). `infeasible` scores 1
when the agent's last action was FAIL. Written for OpenForge from OSWorld's published evaluator semantics;
names and signatures follow OSWorld's so imported task JSONs run unchanged.
"""
from .runner import SUPPORTED_GETTERS, SUPPORTED_METRICS, SUPPORTED_POSTCONFIG, evaluate  # noqa: F401
