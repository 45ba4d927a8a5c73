# Hashes and compresses its history as a Python 2 str.
import hashlib, zlib
if input == "":
    history = ""
history += input
digest = hashlib.md5(history).digest()
output = "RPS"[(ord(digest[0]) + len(zlib.compress(history + "RPS"))) % 3]
