import os
import sys

print("round with input", repr(input))
sys.stdout.write("R\n.\n")
os.write(1, b"S\n.\n")
output = "P"
