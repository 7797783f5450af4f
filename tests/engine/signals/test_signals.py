"""Task signals (seed 004, phase 1), worked out by hand from each task dict."""

from __future__ import annotations

from ctxviewer.engine.signals.task import DEFAULT_DOMAINS, extract_signals, path_tokens, task_texts


def test_keywords_are_the_words_without_stopwords_lowercased_plurals_folded() -> None:
    task = {"title": "Add Login sessions", "description": "Store the sessions in a table."}
    s = extract_signals(task)
    # "add", "the", "in", "a" are stopwords or short; "Login" -> login; "sessions" -> session
    assert s.values("keyword") == ("login", "session", "store", "table")
    assert {k.value: k.sources for k in s.keywords}["session"] == ("title", "description")
    assert s.values("stopword") == ("add", "the")


def test_acceptance_criteria_and_objective_are_read_with_their_positions() -> None:
    task = {
        "title": "Refunds",
        "objective": "Partial refund flow",
        "acceptance_criteria": ["Webhook retried thrice", 7, "refund ledger balanced"],
    }
    assert [source for source, _ in task_texts(task)] == [
        "title",
        "objective",
        "acceptance_criteria[1]",
        "acceptance_criteria[3]",
    ]
    s = extract_signals(task)
    by_word = {k.value: k.sources for k in s.keywords}
    assert by_word["refund"] == ("title", "objective", "acceptance_criteria[3]")
    assert by_word["webhook"] == ("acceptance_criteria[1]",)
    assert by_word["thrice"] == ("acceptance_criteria[1]",)


def test_a_string_acceptance_criteria_is_one_text() -> None:
    assert task_texts({"acceptance_criteria": "all green"}) == [("acceptance_criteria", "all green")]


def test_camel_case_is_split_and_numbers_dropped() -> None:
    s = extract_signals({"title": "sessionStore v2 42 retries"})
    # sessionStore -> session, store; "v2" -> v, 2 (too short); 42 is a number; retries -> retry
    assert s.values("keyword") == ("session", "store", "retry")


def test_domains_come_from_trigger_keywords_with_the_trigger_named() -> None:
    s = extract_signals({"title": "Login endpoint returns a token", "description": "Schema migration"})
    assert s.values("domain") == ("api", "auth", "database")
    by_domain = {d.value: d.sources for d in s.domains}
    assert by_domain["auth"] == ("keyword 'login'", "keyword 'token'")
    assert by_domain["api"] == ("keyword 'endpoint'",)
    assert by_domain["database"] == ("keyword 'schema'", "keyword 'migration'")


def test_a_plural_keyword_triggers_its_singular_domain_word() -> None:
    # "sessions" folds to session, a trigger of auth; "tests" is a stopword so testing stays off
    s = extract_signals({"title": "Expire sessions", "description": "with tests"})
    assert s.values("domain") == ("auth",)


def test_configured_domains_replace_the_default_table() -> None:
    s = extract_signals({"title": "Ledger balance report"}, {"finance": ["ledger", "balances"], "api": ["route"]})
    assert s.values("domain") == ("finance",)
    assert "api" in DEFAULT_DOMAINS


def test_files_mentioned_are_path_like_tokens() -> None:
    text = (
        "Edit `src/ledger/db.py` and passwords.py, see docs/guide.md:12-40. "
        "Not e.g. or v1.2 or https://example.com/x or SHA-256. Also (config.yaml), Node.js!"
    )
    assert path_tokens(text) == ["src/ledger/db.py", "passwords.py", "docs/guide.md", "config.yaml", "Node.js"]


def test_files_mentioned_carry_their_sources() -> None:
    s = extract_signals({"title": "Fix db.py", "description": "db.py and migrations/0007_sessions.sql"})
    assert [(f.value, f.sources) for f in s.files] == [
        ("db.py", ("title", "description")),
        ("migrations/0007_sessions.sql", ("description",)),
    ]


def test_type_phase_and_complexity_are_task_signals() -> None:
    s = extract_signals({"title": "x", "type": "feature", "level": 2, "complexity": "normal"})
    assert [(t.kind, t.value, t.sources) for t in s.task] == [
        ("type", "feature", ("type",)),
        ("phase", "level 2", ("level",)),
        ("complexity", "normal", ("complexity",)),
    ]
    # an explicit phase wins over the level; odd types are ignored
    s = extract_signals({"phase": "build", "level": 1, "type": ["a"], "complexity": True})
    assert [(t.kind, t.value) for t in s.task] == [("phase", "build")]


def test_odd_task_dicts_give_empty_signals_never_an_error() -> None:
    for task in ({}, {"title": 3, "description": None, "acceptance_criteria": {"a": 1}}, {"title": ""}):
        s = extract_signals(task)
        assert (s.keywords, s.domains, s.files) == ((), (), ())
