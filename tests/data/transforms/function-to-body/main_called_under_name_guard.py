# flags: --require "print("
def main():
    """Entry point."""
    value = 3
    print(value)


if __name__ == "__main__":
    main()
# output
if __name__ == "__main__":
    value = 3
    print(value)
