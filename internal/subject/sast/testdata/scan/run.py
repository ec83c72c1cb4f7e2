import subprocess


def archive(directory):
    """Packs a directory named by the caller into a tarball."""
    return subprocess.call("tar czf out.tgz " + directory, shell=True)
