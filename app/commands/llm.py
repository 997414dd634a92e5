"""`playcoder llm …`: which provider the LLM tester would use, and saving its key in the system keyring.

``check`` names the provider, model, server and where the key comes from
(never the key) and exits 2 with the one sentence that says what is missing.
``set-key`` reads a key from standard input (hidden when typed) into the
keyring, so it never appears in shell history, settings files or the database.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from app import cli
from app.engine.llm.config import PROVIDERS, forget_key, public_url, resolve_settings, save_key


def cmd_check(args: argparse.Namespace) -> int:
    from app.engine.llm.pricing import load_prices

    options = {k: v for k, v in (("provider", args.provider), ("model", args.model), ("base_url", args.base_url))
               if v is not None}
    settings = resolve_settings(options)  # a UserError here is the one sentence of what is missing
    price = load_prices().lookup(settings.model)
    print(f"provider: {settings.provider}")
    print(f"model:    {settings.model}")
    print(f"server:   {public_url(settings.base_url)}")
    print(f"API key:  {'not needed' if settings.key_source == 'none' else settings.key_source}")
    print("price:    " + (f"${price[0]:g} in / ${price[1]:g} out per million tokens" if price
                          else "unknown (costs are recorded as empty; add it to a prices.toml)"))
    print("ready: `playcoder test TARGET --tester llm` will use these settings")
    return 0


def cmd_set_key(args: argparse.Namespace) -> int:
    if sys.stdin.isatty():
        key = getpass.getpass(f"{args.provider} API key (hidden): ")
    else:
        key = sys.stdin.readline()
    key = key.strip()
    if not key:
        print("playcoder: no key was given; nothing was saved.", file=sys.stderr)
        return 2
    save_key(args.provider, key)
    print(f"saved the {args.provider} key in the system keyring (service 'playcoder')")
    return 0


def cmd_forget_key(args: argparse.Namespace) -> int:
    removed = forget_key(args.provider)
    print(f"removed the {args.provider} key from the system keyring" if removed
          else f"no {args.provider} key was saved in the system keyring")
    return 0


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("llm", help="check the LLM tester's provider settings or save an API key")
    sub = p.add_subparsers(dest="llm_command", required=True)
    c = sub.add_parser("check", help="say which provider, model and key the llm tester would use")
    c.add_argument("--provider", choices=PROVIDERS, default=None)
    c.add_argument("--model", default=None)
    c.add_argument("--base-url", default=None)
    c.set_defaults(handler=cmd_check)
    s = sub.add_parser("set-key", help="save a provider's API key in the system keyring (read from stdin)")
    s.add_argument("provider", choices=PROVIDERS)
    s.set_defaults(handler=cmd_set_key)
    f = sub.add_parser("forget-key", help="remove a provider's API key from the system keyring")
    f.add_argument("provider", choices=PROVIDERS)
    f.set_defaults(handler=cmd_forget_key)


cli._EXTRA_COMMANDS.append(register)
