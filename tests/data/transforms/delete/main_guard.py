# flags: --require "main()"
def main():
    print("hello")


if __name__ == "__main__":
    import sys
    main()
    sys.exit(0)
# output
if __name__ == "__main__":
    main()
