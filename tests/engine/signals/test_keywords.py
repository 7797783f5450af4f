"""Task keywords: title/description words and file-stem parts, with their sources.

Rules under test (the reference ``SpecLoader._extract_task_keywords``):

* title and description are split on whitespace; a word longer than 3 characters is
  lowercased and kept with its punctuation attached;
* for every list under ``files`` (any key), each path's stem with ``-`` -> ``_`` is
  split on ``_``; parts longer than 2 characters are lowercased and kept;
* a non-text title/description, ``files`` that is not a mapping, or a path entry
  that is not a string raise :class:`KeywordError`.
"""

from __future__ import annotations

from typing import Any

import pytest

from ctxviewer.engine.signals.keywords import KeywordError, extract_keywords


def words(task: dict[str, Any]) -> tuple[str, ...]:
    return tuple(k.word for k in extract_keywords(task))


def sources(task: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    return {k.word: k.sources for k in extract_keywords(task)}


# -- title and description ------------------------------------------------------------


def test_title_and_description_words_longer_than_three_are_lowercased_with_punctuation() -> None:
    task = {
        "title": "Add the Login module.",
        "description": "Wire up OAuth2 tokens, then test",
    }
    # title:       Add(3) the(3) Login(5) module.(7)         -> login, module.
    # description: Wire(4) up(2) OAuth2(6) tokens,(7) then(4) test(4)
    #                                                        -> wire, oauth2, tokens,, then, test
    # returned sorted: login < module. < oauth2 < test < then < tokens, < wire
    assert words(task) == ("login", "module.", "oauth2", "test", "then", "tokens,", "wire")
    src = sources(task)
    assert src["login"] == ("title",)
    assert src["module."] == ("title",)
    assert src["tokens,"] == ("description",)


def test_three_characters_is_too_short_four_is_enough() -> None:
    assert words({"title": "abc abcd ABC ABCD"}) == ("abcd",)


def test_any_whitespace_separates_words() -> None:
    # tab, newline and a run of spaces all split
    assert words({"description": "alpha\tbeta\ngamma    delta"}) == (
        "alpha",
        "beta",
        "delta",
        "gamma",
    )


def test_the_same_word_twice_is_one_keyword_with_one_source() -> None:
    kws = extract_keywords({"title": "Cache cache CACHE", "description": "cache"})
    assert [(k.word, k.sources) for k in kws] == [("cache", ("title", "description"))]


def test_missing_or_empty_fields_give_no_keywords() -> None:
    assert words({}) == ()
    assert words({"title": "", "description": "", "files": {}}) == ()


def test_a_null_title_is_skipped_like_the_reference_walrus() -> None:
    # The reference does ``if text := task.get(field, ""):`` so a falsy value is skipped
    # before anything calls ``.split()`` on it.
    assert words({"title": None, "description": "real words"}) == ("real", "words")


# -- files ----------------------------------------------------------------------------


def test_file_stems_split_on_underscore_and_dash_parts_longer_than_two() -> None:
    task = {
        "files": {
            "create": ["src/auth-service_v2.py"],  # auth_service_v2 -> auth, service (v2 is 2)
            "modify": ["README.md"],  # README -> readme
            "read": ["docs/api_ref.md"],  # api_ref -> api, ref (3 > 2)
            "custom": ["a/ab_xy-abc.txt"],  # ab_xy_abc -> abc only
        }
    }
    assert words(task) == ("abc", "api", "auth", "readme", "ref", "service")
    src = sources(task)
    assert src["auth"] == ("files.create: src/auth-service_v2.py",)
    assert src["readme"] == ("files.modify: README.md",)
    assert src["api"] == ("files.read: docs/api_ref.md",)
    assert src["abc"] == ("files.custom: a/ab_xy-abc.txt",)


def test_only_the_stem_counts_not_folders_and_not_the_last_suffix() -> None:
    task = {
        "files": {
            "create": [
                "authentication_dir/x.py",  # stem "x": nothing, the folder is ignored
                "dist/archive.tar.gz",  # stem "archive.tar" (only .gz removed)
                "config/.env",  # stem ".env" (a dot file has no suffix), 4 > 2
            ]
        }
    }
    assert words(task) == (".env", "archive.tar")


def test_file_stem_parts_are_lowercased() -> None:
    assert words({"files": {"create": ["lib/Token_Store.ts"]}}) == ("store", "token")


def test_a_files_value_that_is_not_a_list_is_ignored() -> None:
    assert words({"files": {"create": "src/important_module.py", "modify": None}}) == ()


def test_a_word_from_title_and_from_a_file_has_both_sources_in_order() -> None:
    task = {"title": "Token refresh", "files": {"create": ["token_cache.py"]}}
    src = sources(task)
    assert src["token"] == ("title", "files.create: token_cache.py")
    assert src["refresh"] == ("title",)
    assert src["cache"] == ("files.create: token_cache.py",)


# -- what the reference trips over -----------------------------------------------------


@pytest.mark.parametrize(
    "task",
    [
        {"title": 42},
        {"title": ["a", "list"]},
        {"description": {"not": "text"}},
        {"description": 3.5},
    ],
    ids=["int-title", "list-title", "dict-description", "float-description"],
)
def test_non_text_title_or_description_raises(task: dict[str, Any]) -> None:
    with pytest.raises(KeywordError):
        extract_keywords(task)


@pytest.mark.parametrize(
    "files",
    [["src/a.py"], "src/a.py", None, 7],
    ids=["list", "str", "none", "int"],
)
def test_files_that_is_not_a_mapping_raises(files: Any) -> None:
    with pytest.raises(KeywordError):
        extract_keywords({"title": "Good title", "files": files})


@pytest.mark.parametrize("entry", [7, None, {"path": "a.py"}, ["a.py"]], ids=["int", "none", "dict", "list"])
def test_a_path_entry_that_is_not_a_string_raises(entry: Any) -> None:
    with pytest.raises(KeywordError, match=r"files\.read"):
        extract_keywords({"files": {"read": ["fine_name.py", entry]}})


def test_sources_of_a_word_shared_by_many_files_are_kept_once_each_in_order() -> None:
    paths = [f"src/mod_{i}.py" for i in range(5)] + ["src/mod_0.py"]
    (mod, *_rest) = [k for k in extract_keywords({"files": {"create": paths}}) if k.word == "mod"]
    assert mod.sources == tuple(f"files.create: src/mod_{i}.py" for i in range(5))
