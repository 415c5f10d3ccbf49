"""The plots' set-up, shared by every report: matplotlib without a display, one size and
resolution, and a save that cuts nothing off and never leaves half a file."""
import os
import sys

try:
    import matplotlib
except ImportError:
    sys.exit(f"reports: error: {sys.executable} cannot import matplotlib"
             " (apt-get install python3-matplotlib, or run it with a python3 that can)")

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

SIZE = (12, 8)  # inches: at DPI, about 1100 x 750 px once the tight box trims the margins
DPI = 100


def figure(ncols=1, *, width=SIZE[0], height=SIZE[1]):
    """A figure and its axes (one, or ncols side by side)."""
    return plt.subplots(1, ncols, figsize=(width, height), dpi=DPI)


def colours():
    return plt.rcParams["axes.prop_cycle"].by_key()["color"]


def plain_numbers(axis):
    """Tick labels of a log axis as plain numbers (32, 0.2), not powers (2^5, 2x10^-1); call
    it once the data is drawn. Within about a decade the minor ticks are labelled too (else the
    axis would show one number or none)."""
    plain = FuncFormatter(lambda value, _: f"{value:g}")
    axis.set_major_formatter(plain)
    low, high = axis.get_view_interval()
    axis.set_minor_formatter(plain if 0 < low and high < 30 * low else NullFormatter())


def save(fig, path):
    """Writes the PNG through a temporary file; the tight box keeps legends and labels that
    stick out of the axes."""
    tmp = f"{path}.tmp.{os.getpid()}.png"
    fig.savefig(tmp, dpi=DPI, bbox_inches="tight")
    plt.close(fig)
    os.replace(tmp, path)

