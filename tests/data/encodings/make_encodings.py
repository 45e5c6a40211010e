#!/usr/bin/env python3
"""Writes the encoding fixtures under tests/data/encodings/: CSV files as
Excel's "CSV" writes them on Windows outside Western Europe (Python's codecs
encode them), with the UTF-8 text they hold, and files with bytes that do
not fit their encoding, with where those bytes are.

  bundle/                a valid study: one item bank per code page
                         (windows-1256 Arabic and windows-1251 Cyrillic with
                         ';', gbk, shift_jis (cp932: with NEC's circled
                         digits and trail bytes 0x5C), big5 (trail 0x5C),
                         euc-kr (cp949: a character only cp949 has)), a gbk
                         explanation source and Excel's "Unicode Text"
                         (items.txt: UTF-16LE with a byte order mark, tabs).
  bundle-expected.json   each item's key and its input text, in UTF-8.
  excel-ar/              an Arabic study ("language": "ar") whose bank is
                         Excel's Arabic "CSV" (windows-1256, ';') declared as
                         neither, and whose mapping names a column the file
                         does not have: three errors in one `simlab check`.
  unicode-text/          a bank saved as Excel's "Unicode Text" (items.txt)
                         without "encoding": one error, the header checked.
  responses-NAME.csv     long-format responses in encoding NAME (with its
                         delimiter), and responses-NAME.utf8.csv the same
                         rows in UTF-8 with ','.
  bad-*.csv              bytes that do not fit the encoding (long format and
                         item banks).
  expected.json          the responses files (encoding, delimiter) and, for
                         each bad file, its encoding and the located message
                         (line, byte of the file and of the line, computed
                         here from the bytes written).

Run from the repository root: python3 tests/data/encodings/make_encodings.py
"""
import json
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))

CLASSES = [{"id": "pos", "label": "Positive"}, {"id": "neg", "label": "Negative"}]

# Per code page: the name a study gives, Python's codec (Excel writes the
# Windows superset), the delimiter Excel uses there, rows (id, text, label,
# prediction) and the conditions and items of long-format responses.
PAGES = [
    {"name": "windows-1256", "codec": "cp1256", "delim": ";", "pool": "ar",
     "rows": [("س1", "قصة دافئة بسيناريو ذكي", "pos", "pos"),
              ("س2", "فيلم متعب؛ طاقم باهت; لا", "neg", "pos"),
              ("س3", "نهاية «خرقاء»", "neg", "neg")],
     "conditions": ("بدون", "شرح")},
    {"name": "windows-1251", "codec": "cp1251", "delim": ";", "pool": "ru",
     "rows": [("т1", "Тёплая история; умный сценарий", "pos", "pos"),
              ("т2", "Скучный фильм", "neg", "pos"),
              ("т3", "«Ёлка» — ужасно", "neg", "neg")],
     "conditions": ("без", "объяснение")},
    {"name": "gbk", "codec": "gbk", "delim": ",", "pool": "zh",
     "rows": [("题1", "温暖的故事，聪明的剧本", "pos", "pos"),
              ("题2", "乏味的电影, 平淡的演员", "neg", "pos"),
              ("题3", "“笨拙”的结局", "neg", "neg")],
     "conditions": ("基线", "解释")},
    {"name": "shift_jis", "codec": "cp932", "delim": ",", "pool": "ja",
     "rows": [("問1", "温かい物語と賢い脚本①", "pos", "pos"),
              ("問2", "退屈な映画。表示はｶﾀｶﾅ", "neg", "pos"),
              ("問3", "ソフトな結末, \"引用\"", "neg", "neg")],
     "conditions": ("基準", "説明")},
    {"name": "big5", "codec": "cp950", "delim": ",", "pool": "tw",
     "rows": [("題1", "溫暖的故事，聰明的劇本", "pos", "pos"),
              ("題2", "許多功能", "neg", "pos"),
              ("題3", "笨拙的結局", "neg", "neg")],
     "conditions": ("基線", "解釋")},
    {"name": "euc-kr", "codec": "cp949", "delim": ",", "pool": "ko",
     "rows": [("문1", "따뜻한 이야기", "pos", "pos"),
              ("문2", "지루한 영화 똠", "neg", "pos"),
              ("문3", "서툰 결말", "neg", "neg")],
     "conditions": ("기준", "설명")},
]


def cell(v, delim):
    if any(c in v for c in (delim, '"', "\n", "\r")):
        return '"' + v.replace('"', '""') + '"'
    return v


def csv_text(header, rows, delim, eol="\r\n"):
    lines = [delim.join(cell(v, delim) for v in header)]
    lines += [delim.join(cell(v, delim) for v in r) for r in rows]
    return eol.join(lines) + eol


def write(path, data):
    full = os.path.join(HERE, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    if isinstance(data, (dict, list)):
        data = (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    with open(full, "wb") as f:
        f.write(data)


def bank(file, pool, **kw):
    b = {"file": file, "pool": pool, "modality": "text",
         "columns": {"id": "id", "input": "text", "label": "label",
                     "prediction": "pred"}}
    b.update(kw)
    return b


def study(banks, expl=None, extra=None):
    pools = [b["pool"] for b in banks]
    d = {"simlab_study": 1, "id": "encodings", "title": "Excel's code pages",
         "classes": CLASSES,
         "conditions": [{"id": "baseline", "method": None}],
         "blocks": [{"kind": "predict", "id": "p_" + p, "pool": p} for p in pools],
         "items": banks}
    if expl:
        d["explanations"] = expl
        d["conditions"].append({"id": "notes", "method": "notes"})
    if extra:
        d.update(extra)
    return d


def first_bad_utf8(data):
    """The offset of the first byte that is not UTF-8 (Python's decoder)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start
    raise ValueError("valid UTF-8")


def locate(data, at):
    """The 1-based line, byte of the file and byte of the line of data[at]
    (LF, CRLF and a CR alone end lines)."""
    line, start, i = 1, 0, 0
    while i < at:
        if data[i] == 0x0A or (data[i] == 0x0D and (i + 1 >= len(data) or data[i + 1] != 0x0A)):
            line += 1
            start = i + 1
        i += 1
    return line, at + 1, at - start + 1


def main():
    shutil.rmtree(os.path.join(HERE, "bundle"), ignore_errors=True)
    header = ("id", "text", "label", "pred")
    banks, files, expected = [], {}, {}
    for p in PAGES:
        name = "items-%s.csv" % p["pool"]
        banks.append(bank(name, p["pool"], encoding=p["name"],
                          **({"delimiter": ";"} if p["delim"] == ";" else {})))
        files[name] = csv_text(header, p["rows"], p["delim"]).encode(p["codec"])
        for r in p["rows"]:
            expected["%s:%s" % (p["pool"], r[0])] = r[1]
    # Excel's "Unicode Text": UTF-16LE with a byte order mark, tabs, CRLF
    utext = [("u1", "Unicode: عربي, 中文, 日本語, Ёж \U0001F600", "pos", "pos"),
             ("u2", "tabs\tinside", "neg", "pos")]
    banks.append(bank("items.txt", "unicode", encoding="utf-16"))
    files["items.txt"] = b"\xff\xfe" + csv_text(header, utext, "\t").encode("utf-16-le")
    for r in utext:
        expected["unicode:%s" % r[0]] = r[1]
    notes = [("题1", "好的解释：+0.6"), ("题2", "坏的解释：－0.7")]
    files["notes-zh.csv"] = csv_text(("id", "note"), notes, ",").encode("gbk")
    expl = [{"method": "notes", "file": "notes-zh.csv", "pool": "zh",
             "kind": "text", "encoding": "gbk",
             "columns": {"id": "id", "text": "note"}}]
    files["study.json"] = study(banks, expl)
    for name, data in files.items():
        write(os.path.join("bundle", name), data)
    write("bundle-expected.json",
          {"items": expected,
           "explanations": {"zh:%s" % i: t for i, t in notes}})

    # Excel's Arabic "CSV" undeclared, and a column the file lacks
    ar = PAGES[0]
    b = bank("items.csv", "ar")
    b["columns"]["input"] = "النص"
    shutil.rmtree(os.path.join(HERE, "excel-ar"), ignore_errors=True)
    write("excel-ar/study.json", study([b], extra={"language": "ar"}))
    write("excel-ar/items.csv",
          csv_text(("id", "نص", "label", "pred"), ar["rows"], ";").encode("cp1256"))

    # Excel's "Unicode Text" without "encoding"
    shutil.rmtree(os.path.join(HERE, "unicode-text"), ignore_errors=True)
    write("unicode-text/study.json", study([bank("items.txt", "unicode")]))
    write("unicode-text/items.txt", files["items.txt"])

    # long-format responses
    responses = {}
    for p in PAGES:
        rows = []
        for k, cond in enumerate(p["conditions"]):
            for part in range(2):
                for i, r in enumerate(p["rows"]):
                    for phase in ("pre", "post"):
                        correct = (k + part + i + (phase == "post")) % 2
                        rows.append(("p%d%d" % (k, part), cond, phase, r[0],
                                     str(correct)))
        head = ("participant", "condition", "phase", "item", "correct")
        base = "responses-%s" % p["name"]
        write(base + ".csv", csv_text(head, rows, p["delim"]).encode(p["codec"]))
        write(base + ".utf8.csv", csv_text(head, rows, ",").encode("utf-8"))
        responses[p["name"]] = {"file": base + ".csv", "utf8": base + ".utf8.csv",
                                "delimiter": p["delim"], "rows": len(rows)}

    # bytes that do not fit
    bad = []

    def bad_file(name, encoding, data, at, what):
        write(name, data)
        line, byte, col = locate(data, at)
        bad.append({"file": name, "encoding": encoding, "line": line,
                    "message": "%s:%d: %s" % (name, line, what(byte, col))})

    head = "participant,condition,phase,item,correct\r\n".encode("ascii")
    ja = PAGES[3]
    body = ("p1,%s,pre,%s,1\r\np1,%s,post,%s,0\r\n" % (
        ja["conditions"][0], ja["rows"][0][0], ja["conditions"][0],
        ja["rows"][1][0])).encode("cp932")
    data = head + body + b"p2,x,pre,\x81 ,1\r\n"  # 0x81 then a space
    at = data.index(b"\x81 ")
    bad_file("bad-shift_jis.csv", "shift_jis", data, at,
             lambda b, c: "bytes 0x81 0x20 (byte %d of the file, byte %d of "
                          "the line) are not a shift_jis character" % (b, c))
    zh = PAGES[2]
    data = head + ("p1,%s,pre,%s,1\r\n" % (zh["conditions"][0], zh["rows"][0][0])
                   ).encode("gbk") + "p2,基".encode("gbk")[:-1]  # cut short
    at = len(data) - 1
    bad_file("bad-gbk-cut.csv", "gbk", data, at,
             lambda b, c: "the file ends inside a gbk character (byte 0x%02X, "
                          "byte %d of the file, byte %d of the line): cut "
                          "short?" % (data[at], b, c))
    # a lead byte followed by '0', which is no trail byte
    data = head + "p1,基線,pre,題1,1\r\n".encode("cp950") + b"p1,\xa1\x30,post,i,0\r\n"
    at = data.index(b"\xa1\x30")
    bad_file("bad-big5.csv", "big5", data, at,
             lambda b, c: "bytes 0xA1 0x30 (byte %d of the file, byte %d of "
                          "the line) are not a big5 character" % (b, c))
    # windows-1256 read as UTF-8 (the default)
    data = csv_text(("participant", "condition", "phase", "item", "correct"),
                    [("p1", "بدون", "pre", "i1", "1")], ",").encode("cp1256")
    at = first_bad_utf8(data)
    bad_file("bad-utf8.csv", "utf-8", data, at,
             lambda b, c: "invalid UTF-8 at byte %d of the line (byte 0x%02X, "
                          "byte %d of the file)" % (c, data[at], b))
    # item banks: the same kinds, in bank format
    bank_bad = []

    def bad_bank(name, encoding, data, at, what):
        write(name, data)
        line, byte, col = locate(data, at)
        bank_bad.append({"file": name, "encoding": encoding, "line": line,
                         "message": "%s:%d: %s" % ("items.csv", line, what(byte, col))})

    bhead = "id,text,pred\r\n".encode("ascii")
    data = bhead + "1,表示,pos\r\n2,\"ソ\r\nフト\",neg\r\n".encode("cp932") + b"3,\x82\x0a,pos\r\n"
    at = data.index(b"\x82\x0a")
    bad_bank("bad-bank-shift_jis.csv", "shift_jis", data, at,
             lambda b, c: "bytes 0x82 0x0A (byte %d of the file, byte %d of "
                          "the line) are not a shift_jis character" % (b, c))
    data = bhead + "1,Тёплая,pos\r\n".encode("cp1251") + "2,Тёплая,neg\r\n".encode("cp1251")
    at = first_bad_utf8(data)  # "ТёП": 0xD2 0xB8 is UTF-8's U+04B8
    bad_bank("bad-bank-utf8.csv", "utf-8", data, at,
             lambda b, c: "invalid UTF-8 at byte %d of the line (byte 0x%02X, "
                          "byte %d of the file)" % (c, data[at], b))
    write("expected.json", {"responses": responses, "bad": bad,
                            "bank_bad": bank_bad})


if __name__ == "__main__":
    main()
