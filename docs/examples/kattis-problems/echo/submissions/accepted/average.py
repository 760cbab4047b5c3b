numbers = [int(word) for word in input().split()]
print(f"{sum(numbers) / len(numbers):.9f}")
