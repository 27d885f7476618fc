"""click 8.0.0 regression: a command added under another name looks up
default_map (and shows usage) under its original name.

https://github.com/pallets/click/issues/1895 (works in 7.1.2, fixed in 8.0.1
by https://github.com/pallets/click/pull/1915).
The candidate directory is the current directory, first on sys.path.
"""
import os


def test_add_command_name_used_for_default_map():
    import click
    from click.testing import CliRunner

    assert os.path.dirname(os.path.dirname(os.path.abspath(click.__file__))) == os.getcwd()

    @click.command()
    @click.option("--qux", required=True)
    def foo(qux):
        click.echo(qux)

    @click.group()
    def group():
        pass

    group.add_command(foo, "bar")
    result = CliRunner().invoke(group, ["bar"], default_map={"bar": {"qux": "val"}})
    assert result.output == "val\n"
