# flags: --require "main()"
def main():
    return 0


if __name__ == "__main__":
    main()
# output
def main():
    return 0


main()
