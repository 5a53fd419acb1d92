print("navwatch")
