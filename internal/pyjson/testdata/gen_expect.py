#!/usr/bin/env python3
"""Regenerates ../pyexpect_test.go: expectations computed by CPython's json module.

Run from internal/pyjson:  python3 testdata/gen_expect.py > pyexpect_test.go && gofmt -w pyexpect_test.go
Tests never need Python at run time; this script only records what Python does.
"""
import json, math, struct, sys, unicodedata


def gostr(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == '\\':
            out.append('\\\\')
        elif ch in '\n\t\r':
            out.append({'\n': '\\n', '\t': '\\t', '\r': '\\r'}[ch])
        elif 0x20 <= o < 0x7f:
            out.append(ch)
        elif o < 0x80:
            out.append('\\x%02x' % o)
        elif 0xd800 <= o <= 0xdfff:
            raise ValueError("surrogate in Go literal")
        elif ch.isprintable() and unicodedata.category(ch)[0] in 'LMNPS':
            out.append(ch)
        elif o <= 0xffff:
            out.append('\\u%04x' % o)
        else:
            out.append('\\U%08x' % o)
    out.append('"')
    return ''.join(out)


DECODE_OK = [
    '{"a":1,"b":[1.5e300,1E2,-0,-0.0,"x\\ud83d\\ude00<>&\\u2028"],"a":{}}',
    '"' + ''.join('\\u%04x' % i for i in range(0x20)) + '\\u007f\\"\\\\/ \\u0085\\u00a0\\u2029"',
    '[1.0, 3.0, 1e16, 1e-5, 0.0001, 1e15, 123456789012345678, 1.7976931348623157e308, 5e-324, '
    '1e400, -1e400, 0.1, 0.30000000000000004, 1E+2, 1e-7, 12345.6789e-3, 100000000000000000000000, '
    '1e22, 9007199254740993, 9007199254740993.0, 2.5e-5, 1.5e-4, 9999999999999998.0, 0.000123, '
    '1e-310, -1.25, 4.35, 1e0, 0e5, -0e-3, 1.0e+16, 123456789.123456789]',
    '[NaN, Infinity, -Infinity, {"n": NaN}]',
    '[[], {}, [[]], {"a": []}, [{}], {"a": {"b": {}}}]',
    '{"b":1,"a":2,"b":3, "c": {"x": 1, "x": [2]}}',
    ' \t\n\r[ 1 , 2 ,\n\t"x" ]\r\n',
    '"x"', 'true', 'false', 'null', '0', '-0', '-12', '1.5',
    '{"\\u043a\\u043b\\u044e\\u0447": "значение", "emoji": "😀", "combining": "e\\u0301", '
    '"zw": "\\u200b\\ufeff\\u00a0\\u3000\\u00ad", "pua": "\\ue000\\udb80\\udc00", "cn": "\\u0378\\udbff\\udfff"}',
    '"\\/\\b\\f\\n\\r\\t\\"\\\\"',
    '"\\u00e9\\u00E9\\u00C9"',
    '["it\'s", "say \\"hi\\"", "both \' and \\"", "back\\\\slash \'", "\\u0000\\u001b\\u007f\\u0080\\u009f\\u00ff\\u0100"]',
    '{"nested": [1, [2, [3, {"k": [true, false, null]}]]], "": ""}',
    '"tab\\there\\u2028line\\u2029para\\u0085nel"',
    '"\\ud83d\\ude00\\ud800\\udc00\\udbff\\udffd"',
    '[1e1000, -1e1000, 1e-1000]',
    '{"k": "\u00e9\u4e2d\U0001f600"}',
]

DECODE_ERR = [
    '"\\u0041', '"\\u00zz"', '"\\x"', '"\\ud800\\udc0', '"\\ud800\\uzzzz"', '"abc', '"a\x01"', '"a\x1f"',
    '"a\n"', '[1,]', '{"a" 1}', '{"a":1 "b"}', '{1:2}', '{', '[', '', ' ', '1e', '01', '-', '-I', '1.',
    '\ufeff1', '\ufeff', 'nul', '[1 2]', '"\\', '"\\u"', '"\\u12"', '{"a":}', 'a\nb', '\n\n  x', '"é" x',
    '"é\n', '[\n"é", "\\q"]', '{"a":1,}', '{"a":1', '[1', '[1,', 'NaN1', 'nan', 'inf', '-Inf', '+1',
    '.5', '1.e5', '0x10', 'True', 'None', '[1]]', '{} {}', '1 2', '"\\uD834\\uDD1E" x', '[\u00a01]',
    '\u20281', '1\u00a0', '\x0c1', '[1,\x0b2]', '"a"\n\n   "b"', '{"a":1, "b"', '{"a":1, "b":', '{"a"',
    '{"a":1 , "b" : 2 , }', '"\\ud800" x', '["\\ud800", ]', '["\\udc00"', "{'a': 1}", '[-]', '[-a]',
    '"\\u12G4"', '"\\U0041"', '1e+', '1e-', '1E', '00', '-01', '"\t"', '"a\\\n"', '\r\n\r\n  [}',
]

EQUAL = [
    ('NaN', 'NaN'), ('[NaN]', '[NaN]'), ('{"a": NaN}', '{"a": NaN}'), ('1', 'true'), ('0', 'false'),
    ('1.0', '1'), ('2', 'true'), ('"1"', '1'), ('null', 'null'), ('null', 'false'), ('[]', '{}'),
    ('{"a":1,"b":2}', '{"b":2,"a":1}'), ('9007199254740993', '9007199254740992.0'),
    ('9007199254740992', '9007199254740992.0'), ('1e400', 'Infinity'), ('-1e400', '-Infinity'),
    ('Infinity', '-Infinity'), ('-0.0', '0'), ('[1,[true]]', '[1.0,[1]]'),
    ('{"a":1}', '{"a":1,"b":1}'), ('"a"', '"A"'), ('1e16', '10000000000000000'),
    ('123456789012345678901234567890', '123456789012345678901234567890'),
    ('123456789012345678901234567890', '123456789012345678901234567891'),
    ('123456789012345678901234567890', '1.2345678901234568e+29'),
    ('1.5', '1'), ('true', 'true'), ('false', 'true'), ('true', '1.0'), ('[]', '[]'), ('{}', '{}'),
    ('[1,2]', '[2,1]'), ('[1]', '[1,1]'), ('{"a":[1,{"b":null}]}', '{"a":[1.0,{"b":null}]}'),
    ('{"a":1}', '{"A":1}'), ('""', 'null'), ('""', '[]'), ('0', '0.0'), ('NaN', '0'),
    ('Infinity', '1e999999'), ('0.1', '0.1000000000000000055511151231257827'), ('"é"', '"e\\u0301"'),
    ('{"a":1,"a":2}', '{"a":2}'), ('[false]', '[0]'), ('[null]', '[false]'),
]

TRUTHY = ['null', 'false', 'true', '0', '-0', '0.0', '-0.0', '1', '-1', '0.5', 'NaN', 'Infinity',
          '-Infinity', '""', '" "', '"0"', '"false"', '[]', '[0]', '[[]]', '{}', '{"":null}', '1e-400']

FLOATS = [0.0, -0.0, 1.0, 3.0, -3.0, 1e16, 1e-5, 1e-4, 0.0001, 1.5e300, 1e15, 9999999999999998.0,
          1e17, 0.1, 0.2, 0.30000000000000004, 1/3, 2/3, 100.0, 123456789.0, 1e22, 1e23, 5e-324,
          2.2250738585072014e-308, 1.7976931348623157e308, 12345678901234567.0, 1234567890123456.7,
          0.00001234, 0.0001234, 1e-7, 2.5e-5, 6.02214076e23, -1.5e-10, math.pi, math.e, 1e100,
          float(2**53), float(2**53 + 2), 0.5, 4.35, 1e-310, 123e-20, 9.999999999999999e15,
          float('nan'), float('inf'), float('-inf')]

QUOTE = ['', 'plain', 'é中😀', '<script>&amp;</script>', '\u2028\u2029\x7f', '"\\/', 'a\x00b',
         ''.join(chr(i) for i in range(0x20)), 'summary: it\'s "quoted"', '\ufeff\u200b\u00a0',
         '\ud7ff\ue000\U0010ffff']

REPR_STR = ['', 'plain', "it's", 'say "hi"', 'both \' and "', "back\\slash", 'tab\tnl\ncr\r',
            '\x00\x01\x1b\x1f\x7f', '\x80\x85\x9f\xa0\xad\xff', '\u0100\u0378\u2028\u2029\u200b\ufeff',
            '\u3000\u2000\u202f\u205f\u1680', '\ue000\U000f0000\U0010ffff\U0001f600', 'e\u0301 é 中文',
            '\U000e0001\U0001d173', ' leading space', '\'"', '\\\'', 'ʼ‘’“”', '\u061c\u180e\u00ad']


def repr_float_go(f):
    return 'math.Float64frombits(0x%016x)' % struct.unpack('<Q', struct.pack('<d', f))[0]


def main():
    w = sys.stdout.write
    w('// Code generated by testdata/gen_expect.py with Python %d.%d.%d; DO NOT EDIT.\n\n' % sys.version_info[:3])
    w('package pyjson\n\nimport "math"\n\n')
    w('var _ = math.Inf\n\n')
    w('// pyDecodeOK: input, Compact (json.dumps), Pretty (indent=2) + "\\n", repr.\n')
    w('var pyDecodeOK = []struct{ in, compact, pretty, repr string }{\n')
    for s in DECODE_OK:
        v = json.loads(s)
        w('\t{%s, %s, %s, %s},\n' % (gostr(s), gostr(json.dumps(v, ensure_ascii=False)),
                                     gostr(json.dumps(v, indent=2, ensure_ascii=False) + '\n'), gostr(repr(v))))
    w('}\n\n')
    w('// pyDecodeErr: input, Python JSONDecodeError text.\n')
    w('var pyDecodeErr = []struct{ in, err string }{\n')
    for s in DECODE_ERR:
        try:
            json.loads(s)
        except json.JSONDecodeError as e:
            w('\t{%s, %s},\n' % (gostr(s), gostr(str(e))))
        else:
            raise SystemExit('expected error for %r' % s)
    w('}\n\n')
    w('// pyEqual: a, b, json.loads(a) == json.loads(b).\n')
    w('var pyEqual = []struct {\n\ta, b string\n\twant bool\n}{\n')
    for a, b in EQUAL:
        w('\t{%s, %s, %s},\n' % (gostr(a), gostr(b), 'true' if json.loads(a) == json.loads(b) else 'false'))
    w('}\n\n')
    w('// pyTruthy: input, bool(json.loads(input)).\n')
    w('var pyTruthy = []struct {\n\tin   string\n\twant bool\n}{\n')
    for s in TRUTHY:
        w('\t{%s, %s},\n' % (gostr(s), 'true' if json.loads(s) else 'false'))
    w('}\n\n')
    w('// pyFloats: value, repr(value), json.dumps(value).\n')
    w('var pyFloats = []struct {\n\tf          float64\n\trepr, json string\n}{\n')
    for f in FLOATS:
        w('\t{%s, %s, %s},\n' % (repr_float_go(f), gostr(repr(f)), gostr(json.dumps(f))))
    w('}\n\n')
    w('// pyQuote: string, json.dumps(string, ensure_ascii=False).\n')
    w('var pyQuote = []struct{ in, want string }{\n')
    for s in QUOTE:
        w('\t{%s, %s},\n' % (gostr(s), gostr(json.dumps(s, ensure_ascii=False))))
    w('}\n\n')
    w('// pyReprStr: string, repr(string).\n')
    w('var pyReprStr = []struct{ in, want string }{\n')
    for s in REPR_STR:
        w('\t{%s, %s},\n' % (gostr(s), gostr(repr(s))))
    w('}\n')


main()
