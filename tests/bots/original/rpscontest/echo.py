# Plays the opponent's previous move ('R' in the first round, when input is '').
output = input or "R"
