"""The Python API reference, read from the package's docstrings.

Modules are parsed with :mod:`ast`, never imported, so documenting the API runs none of
its code (no numba compile, no side effects) and works for a module whose imports are
missing. Docstrings are written in a small reStructuredText subset, rendered here:
paragraphs, ``literal`` text, roles such as :class:`SiteError`, ``- `` lists, ``::``
literal blocks and ``>>>`` examples.
"""

from __future__ import annotations

import ast
import html
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from perfectplay.site.highlight import code_block

#: Maps a name a docstring cites to the anchor of its entry (None: not documented).
Resolve = Callable[[str], str | None]

__all__ = [
    "Member",
    "Module",
    "collect",
    "documented",
    "module_name",
    "read_module",
    "reference",
    "render",
    "render_doc",
]


@dataclass
class Member:
    name: str  # qualified: perfectplay.errors.InputError
    kind: str  # "function", "class", "method", "property"
    signature: str
    doc: str
    decorators: list[str] = field(default_factory=list)
    members: list[Member] = field(default_factory=list)


@dataclass
class Module:
    name: str
    path: str  # repository-relative
    doc: str
    members: list[Member]


def module_name(package_dir: Path, path: Path) -> str:
    """``perfectplay.solvers.retry`` for ``.../src/perfectplay/solvers/retry.py``.

    >>> module_name(Path("src/perfectplay"), Path("src/perfectplay/solvers/__init__.py"))
    'perfectplay.solvers'
    """
    parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def documented(name: str) -> bool:
    """Whether a module belongs in the reference: not private, not a command's ``cli``."""
    parts = name.split(".")
    return not any(p.startswith("_") for p in parts) and parts[-1] not in ("cli",)


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef, drop_self: bool) -> str:
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    if drop_self and positional:
        # Defaults align with the last positional parameters; drop self's only if it has one.
        defaults = args.defaults[1:] if len(args.defaults) == len(positional) else args.defaults
        args = ast.arguments(
            posonlyargs=args.posonlyargs[1:],
            args=args.args if args.posonlyargs else args.args[1:],
            vararg=args.vararg,
            kwonlyargs=args.kwonlyargs,
            kw_defaults=args.kw_defaults,
            kwarg=args.kwarg,
            defaults=defaults,
        )
    text = f"({ast.unparse(args)})"
    if node.returns is not None:
        text += f" -> {ast.unparse(node.returns)}"
    return text


def _decorators(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[str]:
    return [ast.unparse(d) for d in node.decorator_list]


def _public(name: str) -> bool:
    return not name.startswith("_")


def _class(node: ast.ClassDef, prefix: str) -> Member:
    qual = f"{prefix}.{node.name}"
    bases = ", ".join(ast.unparse(b) for b in node.bases)
    members: list[Member] = []
    signature = f"({bases})" if bases else ""
    fields = []
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            if _public(item.target.id):
                value = f" = {ast.unparse(item.value)}" if item.value is not None else ""
                fields.append(f"{item.target.id}: {ast.unparse(item.annotation)}{value}")
        if not isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        decorators = _decorators(item)
        if item.name == "__init__":
            signature = _signature(item, drop_self=True)
            continue
        if not _public(item.name):
            continue
        if "property" in decorators or any(d.endswith(".getter") for d in decorators):
            returns = f": {ast.unparse(item.returns)}" if item.returns is not None else ""
            members.append(
                Member(f"{qual}.{item.name}", "property", returns, ast.get_docstring(item) or "")
            )
            continue
        drop = "staticmethod" not in decorators
        members.append(
            Member(
                f"{qual}.{item.name}",
                "method",
                _signature(item, drop),
                ast.get_docstring(item) or "",
                [d for d in decorators if d != "classmethod"],
            )
        )
    member = Member(
        qual, "class", signature, ast.get_docstring(node) or "", _decorators(node), members
    )
    if fields and any("dataclass" in d for d in member.decorators):
        member.members.insert(0, Member(f"{qual}.<fields>", "fields", "\n".join(fields), ""))
    return member


def read_module(root: Path, path: Path, name: str) -> Module:
    """Parse one module (a syntax error yields a module that says so, not a crash)."""
    relative = path.relative_to(root).as_posix()
    try:
        tree = ast.parse(path.read_bytes(), filename=relative)
    except (SyntaxError, ValueError) as exc:
        return Module(name, relative, f"(This module could not be parsed: {exc}.)", [])
    exported = None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            try:
                exported = [str(x) for x in ast.literal_eval(node.value)]
            except ValueError:
                exported = None
    defined: dict[str, Member] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            defined[node.name] = Member(
                f"{name}.{node.name}",
                "function",
                _signature(node, drop_self=False),
                ast.get_docstring(node) or "",
                _decorators(node),
            )
        elif isinstance(node, ast.ClassDef):
            defined[node.name] = _class(node, name)
    order = exported if exported is not None else [n for n in defined if _public(n)]
    members = [defined[n] for n in order if n in defined]
    return Module(name, relative, ast.get_docstring(tree) or "", members)


def collect(root: Path, package: str = "perfectplay") -> list[Module]:
    """Every documented module of ``root/src/PACKAGE``, sorted by name."""
    package_dir = root / "src" / package
    modules = []
    for path in sorted(package_dir.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        name = module_name(package_dir, path)
        if documented(name):
            modules.append(read_module(root, path, name))
    return sorted(modules, key=lambda m: m.name)


# ---- docstring rendering --------------------------------------------------------------

_ROLE = re.compile(r":[a-z]+(?::[a-z]+)?:`(~?)([^`<]+?)(?:\s*<([^>]+)>)?`")


def _inline(text: str, resolve: Resolve) -> str:
    """Inline markup of one paragraph: ``code``, roles, `interpreted`."""
    out, pos = [], 0
    pattern = re.compile(r"``(.+?)``|" + _ROLE.pattern + r"|`([^`]+)`", re.DOTALL)
    for match in pattern.finditer(text):
        out.append(html.escape(text[pos : match.start()]))
        pos = match.end()
        if match.group(1) is not None:
            out.append(f"<code>{html.escape(match.group(1))}</code>")
        elif match.group(3) is not None:
            target = (match.group(4) or match.group(3)).strip()
            shown = target.rsplit(".", 1)[-1] if match.group(2) else match.group(3).strip()
            anchor = resolve(target.rstrip("()"))
            code = f"<code>{html.escape(shown)}</code>"
            out.append(f'<a href="#{html.escape(anchor)}">{code}</a>' if anchor else code)
        else:
            out.append(f"<code>{html.escape(match.group(5))}</code>")
    out.append(html.escape(text[pos:]))
    return "".join(out)


def render_doc(doc: str, resolve: Resolve = lambda name: None) -> str:
    """HTML of a docstring.

    >>> render_doc("Sum ``a``.\\n\\n>>> 1 + 1\\n2").count("<pre>")
    1
    >>> render_doc("- one\\n- two")
    '<ul><li>one</li><li>two</li></ul>'
    """
    lines = inspect.cleandoc(doc).splitlines() if doc else []
    out: list[str] = []
    i = 0
    literal_next = False
    while i < len(lines):
        if not lines[i].strip():
            i += 1
            continue
        if literal_next and lines[i].startswith((" ", "\t")):
            block = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith((" ", "\t"))):
                block.append(lines[i])
                i += 1
            text = inspect.cleandoc("\n".join(block)) + "\n"
            out.append(code_block(text, language="python"))
            literal_next = False
            continue
        literal_next = False
        if lines[i].lstrip().startswith(">>>"):
            block = []
            while i < len(lines) and lines[i].strip():
                block.append(lines[i])
                i += 1
            out.append(code_block(inspect.cleandoc("\n".join(block)) + "\n", language="pycon"))
            continue
        if re.match(r"[-*] ", lines[i]):
            items: list[str] = []
            while i < len(lines) and lines[i].strip():
                if re.match(r"[-*] ", lines[i]):
                    items.append(lines[i][2:].strip())
                else:
                    items[-1] += " " + lines[i].strip()
                i += 1
            out.append("<ul>" + "".join(f"<li>{_inline(x, resolve)}</li>" for x in items) + "</ul>")
            continue
        para = []
        while i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith(">>>"):
            para.append(lines[i].strip())
            i += 1
        if len(para) == 2 and re.fullmatch(r"[-=~^]{3,}", para[1]):
            out.append(f"<h5>{_inline(para[0], resolve)}</h5>")
            continue
        text = " ".join(para)
        if text.endswith("::"):
            literal_next = True
            text = text[:-2].rstrip() + ("" if text.endswith(" ::") else ":")
        if text:
            out.append(f"<p>{_inline(text, resolve)}</p>")
    return "".join(out)


def render(modules: list[Module]) -> tuple[str, str]:
    """(table of contents HTML, reference HTML) for ``modules``."""
    names: set[str] = {m.name for m in modules}
    for module in modules:
        for member in module.members:
            names.add(member.name)
            names.update(sub.name for sub in member.members)

    def resolve(target: str) -> str | None:
        if target in names:
            return target
        tails = sorted(n for n in names if n.endswith("." + target))
        return tails[0] if len(tails) == 1 else None

    toc = ['<ul class="api-toc">']
    body = []
    for module in modules:
        toc.append(f'<li><a href="#{module.name}"><code>{module.name}</code></a></li>')
        body.append(f'<section class="api-module" id="{module.name}">')
        body.append(f"<h2><code>{module.name}</code></h2>")
        body.append(f'<p class="api-path">{html.escape(module.path)}</p>')
        body.append(render_doc(module.doc, resolve))
        for member in module.members:
            body.append(_member_html(member, resolve))
        body.append("</section>")
    toc.append("</ul>")
    return "".join(toc), "\n".join(body)


def _member_html(member: Member, resolve: Resolve, level: int = 3) -> str:
    short = member.name.rsplit(".", 1)[-1]
    if member.kind == "fields":
        return (
            f'<div class="api-fields"><h{level + 1}>fields</h{level + 1}>'
            + code_block(member.signature + "\n", language="python")
            + "</div>"
        )
    keyword = {"class": "class ", "function": "def ", "method": "def ", "property": ""}[member.kind]
    decorators = "".join(f"@{html.escape(d)}<br>" for d in member.decorators)
    head = (
        f'<h{level} class="api-sig" id="{html.escape(member.name)}">{decorators}'
        f'<code><span class="api-kw">{keyword}</span><strong>{html.escape(short)}</strong>'
        f"{html.escape(member.signature)}</code>"
        f"{' <em>property</em>' if member.kind == 'property' else ''}</h{level}>"
    )
    parts = [f'<div class="api-member api-{member.kind}">', head, render_doc(member.doc, resolve)]
    parts += [_member_html(sub, resolve, level + 1) for sub in member.members]
    parts.append("</div>")
    return "".join(parts)


def reference(root: Path) -> tuple[str, str]:
    """(table of contents, reference) of the package under ``root/src``."""
    return render(collect(root))
