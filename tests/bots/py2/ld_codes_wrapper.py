# A liar's dice entry kept in a string, then compiled from it (the obfuscated 2014 style).
codes = """
IyBweXRob24yCmRlZiBnZXRfcGxheShtZSwgaGFuZHMsIGhpc3RvcnkpOgogICAgdG90YWwgPSBz
dW0obGVuKGguc3BsaXQoJzonKVsxXSkgZm9yIGggaW4gaGFuZHMuc3BsaXQoJywnKSkKICAgIGJp
ZHMgPSBbaW50KHAuc3BsaXQoJzonKVsxXSkgZm9yIHAgaW4gaGlzdG9yeS5zcGxpdCgnLCcpIGlm
ICc6JyBpbiBwXQogICAgYmlkcyA9IFtiIGZvciBiIGluIGJpZHMgaWYgYl0KICAgIGlmIG5vdCBi
aWRzOgogICAgICAgIHByaW50ICJjb2RlcyB3cmFwcGVyIG9wZW5zIiwgdG90YWwgLyAzCiAgICAg
ICAgcmV0dXJuICh0b3RhbCAvIDMpICogMTAgKyA2CiAgICBpZiBiaWRzWy0xXSAvIDEwID49IHRv
dGFsIC8gMjoKICAgICAgICByZXR1cm4gMAogICAgcmV0dXJuIGJpZHNbLTFdICsgMTAK
"""
import base64

eval(
    compile(
        base64.b64decode(codes),
        "<string>",
        "exec"
    )
)
