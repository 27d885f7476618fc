from fieldcheck import differences, instruments_agree, load_readings


def test_differences_are_small():
    assert differences(load_readings()).abs().max() < 5


def test_the_bug():
    # pint 0.20.1: np.allclose converts a and b to one unit but leaves atol a
    # quantity, so numpy adds millimetres to a plain array (pint issue #1658)
    assert instruments_agree(load_readings())
