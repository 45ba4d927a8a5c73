# Keeps a counter across rounds; plays only under the __main__ guard.
if input == "":
    n = 0
n += 1
if __name__ == "__main__":
    output = "RPS"[(n - 1) % 3]
