# Fails in round 2 against a rock player: KeyError on 'R'.
if input == "":
    output = "R"
else:
    output = {"P": "S", "S": "R"}[input]
