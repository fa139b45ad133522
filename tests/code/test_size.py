"""Files that fit in one reading: no core source over 450 lines, no function over 80.

A function may be longer where it says why, in the comment just above it, with the words
"One long function on purpose" (the event parser's per-event switch: event_parser.cc).
Run: python3 -m unittest discover -s tests/code
"""
import pathlib
import re
import unittest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MAX_FILE_LINES = 450
MAX_FUNCTION_LINES = 80
EXCUSE = "One long function on purpose"
SIGNATURE_END = re.compile(r"\)\s*(const)?\s*(override)?\s*(noexcept)?\s*(->\s*[\w:<>]+)?\s*\{$")
CONTROL = re.compile(r"^(\}\s*)?(if|for|while|switch|else|catch|do)\b")


def blank_literals(src):
    """The source with comments, strings and character literals emptied (lines kept)."""
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
            continue
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            out.append("\n" * src[i:j + 2].count("\n"))
            i = j + 2
            continue
        raw = re.match(r'R"([^(\s]*)\(', src[i:i + 20])
        if raw:
            close = ")" + raw.group(1) + '"'
            j = src.find(close, i + len(raw.group(0)))
            out.append('""' + "\n" * src[i:j].count("\n"))
            i = j + len(close)
            continue
        c = src[i]
        if c in "\"'" and not (c == "'" and i > 0 and src[i - 1].isalnum()):  # (1'000 digit separators)
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def long_functions(text, limit=MAX_FUNCTION_LINES):
    """(first line, lines, head) of each function or lambda body longer than limit, unexcused."""
    code = blank_literals(text)
    lines, raw = code.split("\n"), text.split("\n")
    found = []
    for i, line in enumerate(lines):
        if not SIGNATURE_END.search(line.rstrip()):
            continue
        k = i  # where the statement starts: after the last line ending a statement or block
        while k > 0 and not re.search(r"[;{}]\s*$|^\s*$|^\s*#", lines[k - 1]):
            k -= 1
        head = " ".join(x.strip() for x in lines[k:i + 1])
        if CONTROL.match(head):
            continue
        depth, j = 0, i
        for j in range(i, len(lines)):
            depth += lines[j].count("{") - lines[j].count("}")
            if depth <= 0:
                break
        length = j - k + 1
        above = "\n".join(raw[max(0, k - 4):k])
        if length > limit and EXCUSE not in above:
            found.append((k + 1, length, head[:80]))
    return found


def sources():
    for folder in ("core", "wasm"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".cc", ".h"):
                yield path


class Sizes(unittest.TestCase):
    def test_no_file_is_too_long(self):
        long = [f"{p.relative_to(ROOT)}: {n} lines" for p in sources()
                if (n := len(p.read_text().split("\n")) - 1) > MAX_FILE_LINES]
        self.assertEqual(long, [], f"over {MAX_FILE_LINES} lines")

    def test_no_function_is_too_long(self):
        long = [f"{p.relative_to(ROOT)}:{at}: {n} lines: {head}"
                for p in sources() for at, n, head in long_functions(p.read_text())]
        self.assertEqual(long, [], f"over {MAX_FUNCTION_LINES} lines, without saying why")

    def test_the_check_sees_a_long_function_and_its_excuse(self):
        body = "".join(f'  x += "{{";  // }}\n' for _ in range(MAX_FUNCTION_LINES))
        fn = "int F(int x,\n      int y) {\n" + body + "  return x;\n}\n"
        self.assertEqual([(at, n) for at, n, _ in long_functions("#include <a>\n" + fn)],
                         [(2, MAX_FUNCTION_LINES + 4)])
        self.assertEqual(long_functions(f"// {EXCUSE}: hot.\n" + fn), [])
        self.assertEqual(long_functions("void G() {\n" + "  f();\n" * 10 + "}\n"), [])


if __name__ == "__main__":
    unittest.main()
