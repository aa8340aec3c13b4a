import configparser, os
from checks import check, reward
conf = '/root/.config/pcmanfm/default/pcmanfm.conf'
seen = None
if os.path.isfile(conf):
    cp = configparser.ConfigParser(strict=False)
    cp.read(conf)
    seen = cp.get('ui', 'show_hidden', fallback=None)
check(seen == '1', 'pcmanfm.conf has [ui] show_hidden=1', seen)
reward()
