"""A standard-library client for ``openforge serve`` (see its GET /openapi.json)."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any


def upstream_fields(spec: str | list[str]) -> dict:
    """The request's ``upstream`` and ``replicas`` from one inference server or several (a list, or URLs
    separated by commas as in OPENFORGE_UPSTREAM): the first is ``upstream``, the rest its replicas."""
    urls = [u.strip() for u in (spec.split(",") if isinstance(spec, str) else spec) if u.strip()]
    if not urls:
        raise ValueError("no inference server: set upstream (OPENFORGE_UPSTREAM) to a base URL …/v1, or several separated by commas")
    return {"upstream": urls[0], **({"replicas": urls[1:]} if len(urls) > 1 else {})}


def _pause_body(retry_after_sec: float, mode: str, max_hold_sec: float | None) -> dict:
    body: dict = {"retry_after_sec": retry_after_sec, "mode": mode}
    if max_hold_sec is not None:
        body["max_hold_sec"] = max_hold_sec
    return body


# GET /v1/rollouts/:id `status` (the OpenAPI document's Rollout.status): live ones are polled again, ended ones are final.
LIVE_STATUSES = ("queued", "running")
ENDED_STATUSES = ("finished", "error", "cancelled")


class RolloutFailed(RuntimeError):
    """The service answered with an error, or a rollout ended without a reward."""


def service_token(token: str | None = None, token_file: str | None = None) -> str | None:
    """The service's bearer token: ``token``, else the first line of ``token_file``, else the environment's
    OPENFORGE_SERVICE_TOKEN or the file OPENFORGE_SERVICE_TOKEN_FILE names (``openforge serve`` prints its token
    and writes it to ``<output>/service-token``)."""
    if token:
        return token.strip()
    path = token_file or os.environ.get("OPENFORGE_SERVICE_TOKEN_FILE")
    if path:
        with open(path, encoding="utf-8") as f:
            return f.readline().strip()
    return os.environ.get("OPENFORGE_SERVICE_TOKEN") or None


class RolloutClient:
    def __init__(self, base_url: str, timeout_sec: float = 3600.0, poll_sec: float = 60.0, token: str | None = None, token_file: str | None = None):
        self.base_url = base_url.rstrip("/")
        self.timeout_sec = timeout_sec
        self.poll_sec = poll_sec
        self.token = service_token(token, token_file)

    def _call(self, method: str, path: str, body: Any = None, timeout: float = 30.0) -> Any:
        data = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"}
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.base_url + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as res:
                return json.loads(res.read())
        except urllib.error.HTTPError as err:
            detail = err.read().decode(errors="replace")
            try:
                detail = json.loads(detail)["error"]["message"]
            except (ValueError, KeyError, TypeError):
                pass
            raise RolloutFailed(f"{method} {path}: HTTP {err.code}: {detail}") from None

    def submit(self, **request: Any) -> dict:
        """POST /v1/rollouts; returns ``{"ids": [...], "groups": {...}}``."""
        return self._call("POST", "/v1/rollouts", request)

    def wait(self, rollout_id: str) -> dict:
        """Long-polls GET /v1/rollouts/:id until the rollout has ended; returns its view."""
        deadline = time.monotonic() + self.timeout_sec
        path = "/v1/rollouts/" + urllib.parse.quote(rollout_id, safe="")
        while True:
            wait = max(1, min(self.poll_sec, deadline - time.monotonic()))
            view = self._call("GET", f"{path}?wait={int(wait)}", timeout=wait + 30)
            if view["status"] in ENDED_STATUSES:
                return view
            if view["status"] not in LIVE_STATUSES:
                raise RolloutFailed(f"rollout {rollout_id}: unknown status {view['status']!r} (this client knows {LIVE_STATUSES + ENDED_STATUSES})")
            if time.monotonic() >= deadline:
                raise RolloutFailed(f"rollout {rollout_id} still {view['status']} after {self.timeout_sec} s")

    def rollout(self, rollout_id: str, wait_sec: float = 0, include_stale: bool = False) -> dict:
        """GET /v1/rollouts/:id once (long-polling up to ``wait_sec``); ``include_stale`` asks for a stale rollout's samples."""
        query = f"?wait={int(wait_sec)}" + ("&include_stale=true" if include_stale else "")
        return self._call("GET", "/v1/rollouts/" + urllib.parse.quote(rollout_id, safe="") + query, timeout=wait_sec + 30)

    def wait_group(self, group: str) -> dict:
        """Long-polls GET /v1/groups/:uid until every rollout of the group has ended; returns the group's view."""
        deadline = time.monotonic() + self.timeout_sec
        path = "/v1/groups/" + urllib.parse.quote(group, safe="")
        while True:
            wait = max(1, min(self.poll_sec, deadline - time.monotonic()))
            view = self._call("GET", f"{path}?wait={int(wait)}", timeout=wait + 30)
            if view["ended"]:
                return view
            if time.monotonic() >= deadline:
                raise RolloutFailed(f"group {group} not ended after {self.timeout_sec} s")

    def pause(self, retry_after_sec: float = 5, mode: str = "refuse", max_hold_sec: float | None = None) -> dict:
        """``mode="hold"`` keeps new model calls waiting (each at most ``max_hold_sec``) instead of refusing them."""
        return self._call("POST", "/v1/proxy/pause", _pause_body(retry_after_sec, mode, max_hold_sec))

    def drain(self, timeout_sec: float = 60, retry_after_sec: float = 5, mode: str = "refuse", max_hold_sec: float | None = None) -> dict:
        """Pauses the proxies and waits until the model calls in flight have ended and are recorded (call it
        before a weight update; ``resume`` after). With ``mode="hold"`` new calls wait for the resume rather
        than being refused, so no harness sees an error however long the update takes (up to ``max_hold_sec``).
        Raises RolloutFailed if calls are still in flight at the timeout; the proxies stay paused."""
        body = {"timeout_sec": timeout_sec, **_pause_body(retry_after_sec, mode, max_hold_sec)}
        return self._call("POST", "/v1/proxy/drain", body, timeout=timeout_sec + 30)

    def resume(self, weight_version: str | int | None = None) -> dict:
        """Serves model calls again. ``weight_version`` names the weights now loaded: the proxies record it with
        every call they answer from now on, and a rollout that straddles the update is split there (one sample
        per version). Without it, the version stays what the last resume named."""
        return self._call("POST", "/v1/proxy/resume", {} if weight_version is None else {"weight_version": weight_version})
