# Returns a float (truncated by int()) and checks that last_results is the same live list.
seen = []


def strategy(last_results):
    seen.append(last_results)
    assert all(entry is last_results for entry in seen), "last_results must be the same list"
    assert all(isinstance(v, int) and isinstance(w, bool) for v, w in last_results)
    print("chatter on stdout")
    return 31.9
