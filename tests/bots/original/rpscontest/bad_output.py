if input == "":
    turn = 0
turn += 1
output = "RP" if turn == 3 else "R"
