print "hello"
output = "R"
