#!/usr/bin/env python3
"""The reference the families are checked against: Debian's python3-jinja2, set up exactly as
transformers' _compile_jinja_template (utils/chat_template_utils.py), fed with requests normalised
exactly as vLLM does (entrypoints/chat_utils.py: _parse_chat_message_content, _postprocess_messages;
tools in pydantic model_dump field order).

Reads {"op", "items"} as JSON on stdin and writes a JSON list with one {"ok": ...} or {"error": ...} per item.
Ops: dumps, float_repr, strip, render (a template and its context), chat (a conversation rendered with a
tokenizer_config.json's chat_template).
"""
import json
import sys
from datetime import datetime

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

FIXED_NOW = datetime(2025, 1, 15, 9, 30, 0)


def make_env():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    # transformers also registers its AssistantTracker extension ({% generation %}); the templates checked do not use it
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: FIXED_NOW.strftime(fmt)  # the wall clock in transformers; fixed for checks
    return env


def special_tokens_map(cfg):
    out = {}
    for key in ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]:
        v = cfg.get(key)
        if isinstance(v, dict):
            v = v.get("content")
        if v is not None:
            out[key] = v
    extra = cfg.get("additional_special_tokens")
    if extra:
        out["additional_special_tokens"] = [t["content"] if isinstance(t, dict) else t for t in extra]
    return out


def parse_message(message, accept_reasoning_content_key):
    role = message["role"]
    content = message.get("content")
    reasoning = message.get("reasoning")
    if reasoning is None and accept_reasoning_content_key:
        reasoning = message.get("reasoning_content")
    if content is None:
        content = []
    elif isinstance(content, str):
        content = [{"type": "text", "text": content}]
    texts = [p["text"] for p in content if p.get("type") == "text" and p["text"]]  # vLLM drops empty parts (`if parse_res:`)
    result = {"role": role, "content": "\n".join(texts)}
    if role == "assistant":
        if "tool_calls" in message and message["tool_calls"] is not None:
            result["tool_calls"] = list(message["tool_calls"])
        if reasoning is not None:
            result["reasoning"] = reasoning
            result["reasoning_content"] = reasoning
    elif role == "tool":
        if "tool_call_id" in message:
            result["tool_call_id"] = message["tool_call_id"]
    if "name" in message and isinstance(message["name"], str):
        result["name"] = message["name"]
    return result


def postprocess_messages(messages):
    for message in messages:
        if message["role"] == "assistant" and "tool_calls" in message:
            tool_calls = message.get("tool_calls")
            if not isinstance(tool_calls, list):
                continue
            if len(tool_calls) == 0:
                message.pop("tool_calls", None)
                continue
            for item in tool_calls:
                if content := item["function"].get("arguments"):
                    if not isinstance(content, (dict, list)):
                        item["function"]["arguments"] = json.loads(content)
                else:
                    item["function"]["arguments"] = {}


def model_dump_tool(tool):
    f = tool["function"]
    fn = {"name": f["name"], "description": f.get("description"), "parameters": f.get("parameters")}
    fn.update({k: v for k, v in f.items() if k not in fn})
    out = {"type": tool.get("type", "function"), "function": fn}
    out.update({k: v for k, v in tool.items() if k not in out})
    return out


_configs = {}


def render_chat(case, env):
    path = case["tokenizer_config"]
    if path not in _configs:
        cfg = json.load(open(path, encoding="utf-8"))
        _configs[path] = (env.from_string(cfg["chat_template"]), special_tokens_map(cfg))
    template, specials = _configs[path]
    conversation = [parse_message(m, case.get("accept_reasoning_content_key", False)) for m in case["messages"]]
    postprocess_messages(conversation)
    tools = [model_dump_tool(t) for t in case["tools"]] if case.get("tools") else None
    ctx = dict(specials)
    ctx.update(case.get("kwargs", {}))
    return template.render(messages=conversation, tools=tools, documents=None, add_generation_prompt=case["add_generation_prompt"], **ctx)


def run(op, item, env):
    if op == "dumps":
        return json.dumps(json.loads(item["json"]), **item["kwargs"])
    if op == "float_repr":
        return repr(float(item))
    if op == "strip":
        return getattr(item["s"], item["mode"])(item["chars"])
    if op == "render":
        return env.from_string(item["template"]).render(**json.loads(item["context_json"]))
    if op == "chat":
        return render_chat(json.loads(item), env)
    raise ValueError(op)


def main():
    request = json.load(sys.stdin)
    env = make_env()
    out = []
    for item in request["items"]:
        try:
            out.append({"ok": run(request["op"], item, env)})
        except Exception as e:  # noqa: BLE001 - a template failure is a result to compare
            out.append({"error": f"{type(e).__name__}: {e}"})
    json.dump(out, sys.stdout, ensure_ascii=True)


if __name__ == "__main__":
    main()
