"""The rule reference pages in docs/ are generated from the rules' docstrings and kept current."""

from __future__ import annotations

from pathlib import Path

from graphweld.codemods import RULES
from graphweld.frontends.docs import pages

DOCS = Path(__file__).parents[1] / "docs"


def test_every_rule_has_a_current_page_and_the_index_lists_it():
    for relative, text in pages().items():
        path = DOCS / relative
        assert path.exists(), f"{path} is missing: run `python -m graphweld.frontends.docs docs/`"
        assert path.read_text(encoding="utf-8") == text, f"{path} is out of date: run `python -m graphweld.frontends.docs docs/`"
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    assert all(f"(rules/{rule.id}.md)" in index for rule in RULES)


def test_the_readme_lists_every_rule_as_generated_one_line_each():
    from graphweld.frontends.docs import readme_with_list

    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    assert readme_with_list(readme) == readme, "README.md's rules list is out of date: run `python -m graphweld.frontends.docs docs/`"
    assert all(f"- [`{rule.id}`](docs/rules/{rule.id}.md): {rule.summary}\n" in readme for rule in RULES if not rule.library)
    # A rule keyed on one library's names is listed apart, naming the library.
    library_rules = [rule for rule in RULES if rule.library]
    assert library_rules and all(f"({rule.library}): {rule.summary}" in readme.partition("last resort")[2] for rule in library_rules)


def test_the_readme_fits_on_a_few_screens():
    # The front door: what graphweld is, the set-up commands, the commands in brief, the rules in
    # one line each; the reference is in docs/. The list grows by a line per rule; the rest of
    # the README stays as short as it is (about 10 KB in all with 44 rules).
    from graphweld.frontends.docs import LIST_END, LIST_START

    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    before, _, rest = readme.partition(LIST_START)
    listed, _, after = rest.partition(LIST_END)
    assert len((before + after).encode()) <= 4_200
    assert all(len(line) <= 200 for line in listed.strip().splitlines())


def test_no_page_is_left_for_a_rule_that_is_gone():
    pages_on_disk = {path.stem for path in (DOCS / "rules").glob("*.md")}
    assert pages_on_disk == {rule.id for rule in RULES}


def test_each_page_has_the_four_sections_of_a_rule_doc():
    for rule in RULES:
        text = (DOCS / "rules" / f"{rule.id}.md").read_text(encoding="utf-8")
        for section in ("## What it fixes", "## Why the graph breaks", "## Example", "## Safety", "## Reference"):
            assert section in text, (rule.id, section)


def test_every_relative_link_in_the_readme_and_docs_resolves():
    import re

    from graphweld.frontends.docs import GUIDES

    root = DOCS.parent
    for page, _, _ in GUIDES:
        assert (DOCS / page).exists(), f"docs/{page} is listed in the index but missing"
    for document in [root / "README.md", *DOCS.rglob("*.md")]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", document.read_text(encoding="utf-8")):
            if "://" in target:
                continue
            assert (document.parent / target).exists(), f"{document.relative_to(root)} links to missing {target}"


def test_the_graph_breaks_page_names_each_id_a_rule_says_it_fixes():
    from graphweld.graph_break_pages import page_url, rule_gb_ids

    page = (DOCS / "graph-breaks.md").read_text(encoding="utf-8")
    isolate_io = next(rule for rule in RULES if rule.id == "isolate-io")
    assert {"GB0059", "GB0291", "GB0007"} <= set(rule_gb_ids(isolate_io))
    row = next(line for line in page.splitlines() if line.startswith("| [GB0059]"))
    assert page_url("GB0059") in row and "(rules/isolate-io.md)" in row
    assert page_url("not an id") is None
