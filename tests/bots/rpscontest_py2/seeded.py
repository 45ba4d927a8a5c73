# Seeds its own generators from text, and uses the old WichmannHill generator.
import random
if input == "":
    random.seed("rpscontest")
    old = random.WichmannHill("entry")
output = random.choice("RPS") if old.random() < 0.5 else "RPS"[int(old.random() * 3)]
