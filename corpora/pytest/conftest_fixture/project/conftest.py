def pytest_addoption(parser):
    parser.addoption("--stock-size", type=int, default=20, help="items each test's warehouse starts with")
