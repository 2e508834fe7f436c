"""When two participants' names would read the same: NFKC and a confusables skeleton.  Pure, no I/O.

A second "Tom" written with a Cyrillic о, or in full-width letters (Ｔｏｍ), looks like Tom on every
screen, so a room treats them as one name.  NFKC folds the compatibility forms (full-width, ligatures,
mathematical letters, superscripts); the skeleton then maps each letter that passes for another to one
prototype, as Unicode's UTS #39 does with its confusables table: here the letters of the scripts that pass
for Latin ones (Cyrillic, Greek, Armenian, Cherokee), the Latin look-alikes (dotless i, small capitals),
and the digits and signs that pass for letters (0 and O; 1, I, l and |; rn and m).  Accents stay: José is
not Jose.
"""

from __future__ import annotations

import unicodedata

# prototype: the characters (after NFKC) that read as it; case matters (Greek Ν reads as N, ν as v). The small
# Cyrillic в, м, н, т are small capitals of B, M, H, T: a name in Cyrillic capitals, casefolded, reads through them.
LOOKALIKES = {
    "A": "АΑᎪ",
    "B": "ВΒᏴ",
    "C": "СϹᏟ",
    "E": "ЕΕᎬ",
    "H": "НΗᎻ",
    "J": "ЈᎫ",
    "K": "КΚᏦ",
    "M": "МΜᎷ",
    "N": "Ν",
    "O": "ОΟՕ",
    "P": "РΡᏢ",
    "S": "ЅᏚ",
    "T": "ТΤᎢ",
    "X": "ХΧ",
    "Y": "УΥҮ",
    "Z": "ΖᏃ",
    "a": "аɑα",
    "b": "вβ",
    "c": "сϲᴄ",
    "d": "ԁ",
    "e": "еҽ",
    "g": "ɡ",
    "h": "һհн",
    "i": "іıɩι",
    "j": "јϳ",
    "k": "кκ",
    "l": "IІΙӀӏ1|",
    "m": "м",
    "n": "ոη",
    "o": "оοօᴏ0",
    "p": "рρ",
    "q": "ԛ",
    "s": "ѕ",
    "t": "т",
    "u": "υսμ",
    "v": "νѵ",
    "w": "ԝѡ",
    "x": "хχ",
    "y": "уүγ",
}
SKELETON = str.maketrans({lookalike: prototype for prototype, group in LOOKALIKES.items() for lookalike in group})
SEQUENCES = (("rn", "m"), ("vv", "w"))  # two letters that read as one


def folded(name: str) -> str:
    """A name as compared case-insensitively: NFKC, then casefolded."""
    return unicodedata.normalize("NFKC", name).casefold()


def skeleton(name: str) -> str:
    """What a name reads as, case kept: its NFKC form with each look-alike replaced by its prototype."""
    shape = unicodedata.normalize("NFKC", name).translate(SKELETON)
    for pair, prototype in SEQUENCES:
        shape = shape.replace(pair, prototype)
    return shape


def read_alike(first: str, second: str) -> bool:
    """Whether two names would be taken for one another on screen: the same but for case or form, or letter for
    letter look-alikes (case kept: I reads as l, but Ian does not read as Lan; or both casefolded first: ТОМ
    in Cyrillic capitals reads as tom)."""
    keys = (folded, skeleton, lambda name: skeleton(folded(name)))
    return any(key(first) == key(second) for key in keys)
