import random

output = random.choice(["R", "P", "S"])
