#!/usr/bin/env python3
"""Writes fieldpack's own hostile vectors (the oracle's format) to stdout: the kinds of input the
shared corpus's README says the private acceptance set holds, and a few more. Generators are
Python expressions the oracle evaluates itself."""
import json

vectors = [
    ("fp-div-100k-closed", "'<div>' * 100000 + 'x' + '</div>' * 100000", "str"),
    ("fp-div-100k-unclosed", "'<div>' * 100000 + 'x'", "str"),
    ("fp-b-60k", "'<b>' * 60000 + 'x'", "str"),
    ("fp-b-b-60k", "'<b-b>' * 60000 + 'x'", "str"),
    ("fp-misnested-b-i-25k", "'<b><i>' * 25000 + 'x' + '</b></i>' * 25000", "str"),
    ("fp-svg-50k", "'<svg>' * 50000 + '<img src=x onerror=alert(1)>'", "str"),
    ("fp-attr-10mb", "'<b title=\"' + 'a' * 10000000 + '\">x</b>'", "str"),
    ("fp-attr-1mb", "'<b title=\"' + 'a' * 1000000 + '\">x</b><script>alert(1)</script>'", "str"),
    ("fp-tabs-javascript", "'<a href=\"' + '\\t' * 1000000 + 'javascript:alert(1)\">x</a>'", "str"),
    ("fp-text-10mb", "'a' * 10000001", "str"),
    ("fp-comment-1mb", "'<!--' + 'x' * 1000000 + '--><img src=x onerror=alert(1)>'", "str"),
    ("fp-named-refs", "'&lt;' * 300000 + 'script>'", "str"),
    ("fp-numeric-refs", "'&#60;' * 300000", "str"),
    ("fp-br-300k", "'<br>' * 300000", "str"),
    ("fp-tag-name-1m", "'<' + 'b' * 1000000 + '>x'", "str"),
    ("fp-attr-name-100k", "'<b ' + 'o' * 100000 + '=1>x</b>'", "str"),
    ("fp-p-in-p", "'<p>a<p>b<em>c<p>d</em>e'", "str"),
    ("fp-p-in-b", "'<b><p>x</b>y</p><i>z<p>w</p></i>'", "str"),
    ("fp-utf7-meta", "'<meta charset=\"utf-7\">+ADw-script+AD4-alert(1)+ADw-/script+AD4-'", "str"),
    ("fp-nul-then-script", "'<b>safe</b>\\x00<script>alert(1)</script><i>after</i>'", "str"),
    ("fp-invalid-utf8", "b'<b>\\xff\\xfe</b><scr\\xc0ipt>alert(1)</script>\\xed\\xa0\\x80'", "bytes"),
    ("fp-overlong-lt", "b'\\xc0\\xbcscript\\xc0\\xbealert(1)'", "bytes"),
    ("fp-utf16-bom", "'\\ufeff<script>alert(1)</script>'.encode('utf-16-le')", "bytes"),
    ("fp-table-foster", "'<table><b>x</b><tr><td>y<img src=x onerror=alert(1)></td></tr></table>'", "str"),
    ("fp-math-style", "'<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>'", "str"),
    ("fp-noscript", "'<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\">'", "str"),
    ("fp-xmp", "'<xmp><p title=\"</xmp><img src=x onerror=alert(1)>\">'", "str"),
    ("fp-plaintext", "'<plaintext><img src=x onerror=alert(1)><b>x'", "str"),
    ("fp-cdata", "'<![CDATA[<img src=x onerror=alert(1)>]]>'", "str"),
    ("fp-comment-trick", "'<!--><img src=x onerror=alert(1)>-->'", "str"),
    ("fp-template", "'<template><img src=x onerror=alert(1)></template><b>ok</b>'", "str"),
    ("fp-form-feed", "'<img\\x0csrc=x\\x0conerror=alert(1)>'", "str"),
    ("fp-entity-no-semicolon", "'<b>&ltscript&gt;alert(1)&lt/script&gt;</b>'", "str"),
    ("fp-deep-255", "'<i>' * 255 + 'x'", "str"),
    ("fp-deep-120", "'<span>' * 120 + 'x' + '</span>' * 120", "str"),
]
for vid, generator, kind in vectors:
    print(json.dumps({"id": vid, "source": "fieldpack", "generator": generator, "kind": kind}))
