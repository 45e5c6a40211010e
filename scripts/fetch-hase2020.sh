#!/bin/sh
# Fetches the published stimuli of Hase & Bansal (2020), "Evaluating
# Explainable AI" (ACL 2020), and installs them as the data/ folders of the
# four studies in examples/hase2020.
#
# The authors publish 72 Excel workbooks in
# github.com/peterbhase/InterpretableNLP-ACL2020 (MIT licence), folders
# <text|tabular>/data/HIT-data-public-final/. This script takes them at a
# pinned commit, checks the SHA-256 sum of every workbook, converts each to
# CSV (RFC 4180, UTF-8, CRLF row ends; the layout of the folder is kept),
# checks the SHA-256 sum of every CSV file, and only then replaces
# examples/hase2020/<domain>-<test>/data with the domain's folder.
# Any missing file or checksum mismatch stops it before anything is
# installed (exit status 1).
#
#   scripts/fetch-hase2020.sh [--from DIR] [--dest DIR]
#     --from DIR  take the workbooks from DIR (laid out like the repository:
#                 DIR/text/data/HIT-data-public-final/...) instead of
#                 downloading them, e.g. a clone of the authors' repository
#     --dest DIR  the folder holding the four example studies
#                 (default: examples/hase2020 of this source tree)
#
# Needs sh, sha256sum, python3 (standard library only), and curl or wget
# when downloading.
set -eu

REPO=peterbhase/InterpretableNLP-ACL2020
COMMIT=8b6d8049dd09d0222ed85bf951a95197114eecac
STUDIES="text-forward text-counterfactual tabular-forward tabular-counterfactual"

me=fetch-hase2020
root=$(cd "$(dirname "$0")/.." && pwd)
from=""
dest="$root/examples/hase2020"

usage() {
    echo "usage: $0 [--from DIR] [--dest DIR]"
}
fail() {
    echo "$me: $*" >&2
    exit 1
}

while [ $# -gt 0 ]; do
    case $1 in
    --from)
        [ $# -ge 2 ] || { usage >&2; exit 2; }
        from=$2
        shift 2
        ;;
    --dest)
        [ $# -ge 2 ] || { usage >&2; exit 2; }
        dest=$2
        shift 2
        ;;
    -h | --help)
        usage
        exit 0
        ;;
    *)
        usage >&2
        exit 2
        ;;
    esac
done

command -v sha256sum >/dev/null || fail "sha256sum is needed"
command -v python3 >/dev/null || fail "python3 is needed to convert the workbooks"
if [ -n "$from" ]; then
    [ -d "$from" ] || fail "$from is not a folder"
elif command -v curl >/dev/null; then
    download() { curl -fsSL --retry 3 -o "$2" "$1"; }
elif command -v wget >/dev/null; then
    download() { wget -q -O "$2" "$1"; }
else
    fail "curl or wget is needed to download (or use --from DIR)"
fi
for study in $STUDIES; do
    [ -f "$dest/$study/study.json" ] || fail "$dest/$study/study.json not found"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/fetch-hase2020.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

# SHA-256 of the published workbooks at $COMMIT
cat >"$work/xlsx.sha256" <<'SUMS'
635a8adf7c23969a85412cf01c4e49cc194c3b00f68697eb4b78eb020f5dc2b4  tabular/data/HIT-data-public-final/Master-Data-Files/master-counterfactual.xlsx
6b237c4ad7f18e897600a8b8c2b9f88f43ddd765c4c38c60c1ffbf86a64db03f  tabular/data/HIT-data-public-final/Master-Data-Files/master-forward.xlsx
bf0adbe4782417c2ba70f7294536f96798fb572b1063efa657f93dac2c06e1d0  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-Anchor.xlsx
360db8e65bc6ea482f6efe7b2a185155e20560dfb635cc2ebb889975ef4c5598  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-LIME.xlsx
800df6bc22af55ac391d448c033cb84edf901a14fe2e40ca06e397bb6064a8eb  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-composite.xlsx
e7303b527e86c64e67aaf22e339a4848e0ac52367cc9c7642128c4a6a7e8ff68  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-decision_boundary.xlsx
4ed25893e0fd1be979df3b5ba0ac4cbfc831200a8421847e21fc0dc16f8f84f3  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-omission.xlsx
580909116a91b693d56a82094f44975bd28319e47bea9a9086c7660fe783bc0d  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-prototype.xlsx
f920697c5cc9a9ff5461b557cffcebb42ba0a1712d1bc8f68e0485311e59a62c  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-Anchor.xlsx
ce4f88994b9c727589e072d7bea84db5776f52f51226cf4118f90dc2364fa3a7  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-LIME.xlsx
428d79f32bf9e1a6e2cd0fadc280c85df50defc33999f4d2a2a8064b208d3581  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-composite.xlsx
42c97bfc3f18176c50c424977781cc680f1cf45426f2da2f0099325a6dca57a1  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-decision_boundary.xlsx
463102b7a134a3bd946105c7de880ac7fe7b24cea827a44e9aedfc676029d8a7  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-omission.xlsx
fd92c722ac8626776e9114e5c08f2905a9cdf86671e0714b3d9cc29402a5b90f  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-prototype.xlsx
6129859b31bc5fcd15cf215d44aecb45a742f93f91ac0b137c01910f1eca1e50  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-Anchor.xlsx
76bd34ab08ffdf84585429e0b85a6bb0dc48c0ebf1bd2d6592a74dbcf3ba1359  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-LIME.xlsx
6090f62236445df8425c0091039367d6e206f88ed5817f744cdb9252270dc0f7  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-composite.xlsx
8480750917cfdbf7753ad9e19abea00e7adf915ade1851624fe61e20d2070e3c  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-decision_boundary.xlsx
f2e29c6ee9e7be56058b56013fbc314f636eba14e5b1f3e17ef0b1e32b5c7d1d  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-omission.xlsx
efe91a1ed703e26da60583c6e309acd59db7224243a7034e5574210cb9452aea  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-prototype.xlsx
f8b39722d60bebd64fa3c7c63ca1d4344f2e284468ee81b67edc60fbdfb77db9  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-Anchor.xlsx
e7ceb0644b4b669a93fd98ad6e200e84b46c1bf4b3b9b12edaf5455a901048e2  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-LIME.xlsx
b4c78939dbcc819aa08bc160fc097bda6e0094b844ca2f675e722ceba0d7722e  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-composite.xlsx
be09195aabd88ecd12734a2921eb44a722df0bc726d4f79f2e027c50948518bd  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-decision_boundary.xlsx
927d73aa71fcc3eb7f72db9dd2d309e81537f7a9dc7d1784dab0666295e3c0ce  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-omission.xlsx
31533cc27ef0ec5d7c06541ac86f56d04c5548bff12551a6e0f32d440ddbae9c  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-prototype.xlsx
afee43195838d15ebf77977f69b7820f263d46ce5d2d83e854c1e5e5f805bc58  tabular/data/HIT-data-public-final/Tests/Forward/learning-Anchor.xlsx
ca691ad33b22bfe45b71b975c9969346da81863aeecd44828a2cc31e686825db  tabular/data/HIT-data-public-final/Tests/Forward/learning-LIME.xlsx
0418aeb859f6b92e8e1744f751496bf3d53e102234859901ce08b778d177cd4f  tabular/data/HIT-data-public-final/Tests/Forward/learning-blackbox.xlsx
8589b725f734df4671f3e44b636886aa7649dc91ca958b87bd4f0667172357ab  tabular/data/HIT-data-public-final/Tests/Forward/learning-composite.xlsx
fb4b6495fc9cc6133055111e7115b9fae17b7f2acd9329769391152d056ab872  tabular/data/HIT-data-public-final/Tests/Forward/learning-decision_boundary.xlsx
5d0bc155a0d3eae2f3fd73fb09d12993058bf35dc5a7e4d271a01cd1d9dc0128  tabular/data/HIT-data-public-final/Tests/Forward/learning-omission.xlsx
e1ca4efb5581a00e24becf617d3f060192b1cc72befffea1934d9691ce7b372c  tabular/data/HIT-data-public-final/Tests/Forward/learning-prototype.xlsx
f53ea16af177ce49694cf2c1dc22f8b10e7255f6294c76758b63e50ad4c875ec  tabular/data/HIT-data-public-final/Tests/Validity/validity-Anchor.xlsx
4b48ec7dbd758b4982bf2bc01a80c20690f4784d2145e1b514a63b80b9768239  tabular/data/HIT-data-public-final/Tests/Validity/validity-LIME.xlsx
72d03cb25809eaab272e432cc315a773db8ce738ba3649d3e3d22d2fa026d686  tabular/data/HIT-data-public-final/Tests/Validity/validity-composite.xlsx
0872d95a94f1d07ddfad8767e5d23c3d3fbadfce41c59d70fe51398801a36284  tabular/data/HIT-data-public-final/Tests/Validity/validity-decision_boundary.xlsx
bb92e5fe2b4bf479b18d26b562e7cb9939b1e7ef731cb1445f7d9199e64bfccd  tabular/data/HIT-data-public-final/Tests/Validity/validity-omission.xlsx
2d34a7d9d548abf3a1003bd55a64935045defc59cc5fc86e1cc7a76639b7c4cf  tabular/data/HIT-data-public-final/Tests/Validity/validity-prototype.xlsx
a7504974aa162ad75b71a29626fb3f595cc7a37bc2fb4498dabf328189409c37  text/data/HIT-data-public-final/Master-Data-Files/master-counterfactual.xlsx
9b9b9129157d6a20248e7c7ec2dd402f0fccd6dfc00bd484d022dfe663efab8f  text/data/HIT-data-public-final/Master-Data-Files/master-forward.xlsx
21e0fed7a0b083a0e75c91b2d6347a8fc1cbcb17b063c6e63f7f66bce8e7c211  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-Anchor.xlsx
865002e86f51b279a16399dcfd978b23149bb1c2eb4200ee0dd602ec385fd57e  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-LIME.xlsx
31d3c85feaeaab80e1ce59b69d0f583a175fa36e2b3c33687ae9432e0adc1233  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-composite.xlsx
63cef53e402aa764b9b530edc65e520dfd1bd00967a977ef7e4b7a492cec0f85  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-decision_boundary.xlsx
ef67a7201a038dbe955b7bcd76b748b320b62bb3d36fb5325431311b2320061f  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-omission.xlsx
d739e66ce8d7c9f20fc17e12dc26d1ec2c0780684507fd3476f8d69fcd552d8e  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-prototype.xlsx
c062652203ac6d7e30444ac0fee71597bd6ab4858078b10074ae46945c0f4f92  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-Anchor.xlsx
6dfa9fde0e1e86fb49dc6c73817903fa2f8f9a734c24ca2144db701bd56d28c3  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-LIME.xlsx
67e68accfbdcf999a493f98253c61d7dc1e9a410eacd5f56a635437c8cfecdc9  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-composite.xlsx
568deba204a1ee59e96de32aa62c1e83063ff7b4e8737ad18e20b2ce4341691c  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-decision_boundary.xlsx
b1d529f96f343c3682edc4ca859b6b6c08fe6877417dbd462ad31523b9c0fbcb  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-omission.xlsx
8a2f77d33b6c12f62b91cc4d4123d0e2785e5adb453dbc2504e63cb842f129e7  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-prototype.xlsx
df03fe97738a5de70121c29d66115c81e5529fe67e487e859167b0dec6fa354a  text/data/HIT-data-public-final/Tests/Forward/forward-post-Anchor.xlsx
2eafcd3c79b24764109bc1320a9695f7d332ca2876b5ff75255e34feacef2c13  text/data/HIT-data-public-final/Tests/Forward/forward-post-LIME.xlsx
21823c473d5b9d3825436b7ae0db1a4868af9cf7538b67b8d80363d41ce8e3a9  text/data/HIT-data-public-final/Tests/Forward/forward-post-composite.xlsx
c46a2565d295cf19372afafba6aeff77bb4e9069d0d0c33b454ab3f152f95d84  text/data/HIT-data-public-final/Tests/Forward/forward-post-decision_boundary.xlsx
21f7d98a9e547f79e082477f0ddad1970ac7de0bb94648cfdd6da79e9a8b8408  text/data/HIT-data-public-final/Tests/Forward/forward-post-omission.xlsx
8d83ade1c6e5fff9f7d399e6103adac8a030e5971c341e4eca92ea9cf84a1cad  text/data/HIT-data-public-final/Tests/Forward/forward-post-prototype.xlsx
80b5ded21a369d09bf23ead153c45d899aab834b1b15c53c044a570934f0470f  text/data/HIT-data-public-final/Tests/Forward/forward-pre-Anchor.xlsx
c847379c1d6cce31480f5a2a9ea6728ee29496c4288e3ed0d1bc29ba8f9eb5a6  text/data/HIT-data-public-final/Tests/Forward/forward-pre-LIME.xlsx
42ea11f99de9aa73a966ef5f44c7a2c6f7f34cf377d6f0f5e232e75940cf2be8  text/data/HIT-data-public-final/Tests/Forward/forward-pre-composite.xlsx
be84a1683e9967713860abdf8b0b83313143c35cdc795c3bf7d1ac5714cc02a0  text/data/HIT-data-public-final/Tests/Forward/forward-pre-decision_boundary.xlsx
39ef820a52e01c46ead4b3c2efa2ae1401064872319239ba8aaac06a750918e5  text/data/HIT-data-public-final/Tests/Forward/forward-pre-omission.xlsx
ed32350b6546614968bdc2fd1d2c780926333f7bb7282f78a430a7ee3ef6f8d5  text/data/HIT-data-public-final/Tests/Forward/forward-pre-prototype.xlsx
8ab98beb82786656a861e700aa72be942dcbc2e867177adfd3d11281b9110c12  text/data/HIT-data-public-final/Tests/Forward/learning-Anchor.xlsx
dadd8826fb020b9178f501d90f2f5dfa827fafa5f22d46b5566fbb5868940803  text/data/HIT-data-public-final/Tests/Forward/learning-LIME.xlsx
f0c7550ace1b004a67a2c87da2907671db96f7ba7ff17bf2c9906cf8762ccf2c  text/data/HIT-data-public-final/Tests/Forward/learning-blackbox.xlsx
2b6f74bb40de0c1d5fe689451fda68ed6f2b6e4d2b09468b4f98369f5effd3c8  text/data/HIT-data-public-final/Tests/Forward/learning-composite.xlsx
47ff0eba437050f420aa8b1b78cdfacc2f9d7fbb2a74d6a4bc13c3d9537c673c  text/data/HIT-data-public-final/Tests/Forward/learning-decision_boundary.xlsx
891d0e4928a8aa08c584182034378af05f37c184c9aa331f99f76f643ab21c0d  text/data/HIT-data-public-final/Tests/Forward/learning-omission.xlsx
8287a03976f4ba7a0a47abb4c0770430ae75c2b68a857309dd65898773478f82  text/data/HIT-data-public-final/Tests/Forward/learning-prototype.xlsx
SUMS

# SHA-256 of their conversion to CSV
cat >"$work/csv.sha256" <<'SUMS'
379290a98962f00af2ce94c1f079cdefc9042bae15da46373c3e7d29b5c13c0d  tabular/data/HIT-data-public-final/Master-Data-Files/master-counterfactual.csv
684b2ee70b9a8a029d18ec7ddab20512cbfaf8bdb2af13ceb27f1ad452aa3d58  tabular/data/HIT-data-public-final/Master-Data-Files/master-forward.csv
b28e2123ab0ea4e449a7c1340177910dec1240f0dcfdbce54f33faa002fa87ce  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-Anchor.csv
8f22cbe1bce5da095f163739872712a8cf6e9c6306ee7d3c7d627a6daaeaf158  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-LIME.csv
e295eff016493e00a12f4e85b725f2eb4932f53ad88e530ffda6d74b3d9d6f98  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-composite.csv
d48510e10f9bacd7ce19d876c6a221a8b15b8d73f6350096d65feffe41392ada  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-decision_boundary.csv
700ba2d9b875bd1332c9492bb6653938bdc384086a4ae3180aa2827b1c80f0a3  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-omission.csv
45872d146ba1ed0f88bd110719aeae3756f39f9d3ada984647a890bf7afb20b1  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-prototype.csv
64cf8f58cf73f18592a61b639acbe28c50aec42d31890ca94e20fd234476bc4f  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-Anchor.csv
629c0aecb41f4b07b81806410a42b25613a1fd9e44bb9d8f068808269975c336  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-LIME.csv
7c4ce8e290168638f669febcbfdd472384a66d3de1de97642f15f3357c8e4a88  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-composite.csv
750e7945e73c7d82f53807d8b6e6faa75a70df366521040dc3a3afb8741e4634  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-decision_boundary.csv
bdee73677b157753245fc60e8705ffc6cf66578253276128620727a817336345  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-omission.csv
2cd2440a93b86aba3f2e9e2f3a4c9d9921b168e6d36f4cf1a4c4c8ca01406e51  tabular/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-prototype.csv
e8a35586799545ff7e5c70454260261f5a649098a042428be363838ba6e8d4a8  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-Anchor.csv
43b9a6057fa7d1b9a9dbbf0b5210d687700774f4a339699f07f51754ff0f3330  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-LIME.csv
a96a1ebfaf25fc88e32df73326983f6907622011de066368e063738724f06e11  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-composite.csv
0b3dde543b59679edb2e7001b3a2c5ba82a4e9d2f48ece1649d7f987d659e27e  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-decision_boundary.csv
726c855502a4caa9ee10ea2d60cc36082b4c3ad38817c8782c187d65bf3cbad7  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-omission.csv
5ca384b6d539da190dd0f802d5ce2e61eda7239d6d11e76f11d7cf919e894cd1  tabular/data/HIT-data-public-final/Tests/Forward/forward-post-prototype.csv
f750c831ac1b6732326133c19a370b570d1e974e1e19b044825635302a150cc4  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-Anchor.csv
169fcbca95624e861b028b15682721f61130f688dadea58d4d06b8c3a0aced86  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-LIME.csv
e1a928ae12bf2ca705078b7b96ccb0458492f2f2764dc0115d9e24505ce63540  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-composite.csv
e65af3b99e938e965510f2e9c8f9d33fd8fd655685c5197ace0837d66767ac5e  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-decision_boundary.csv
f55c5d59d0f9a2c56823cc4dd824399ebbfc27b4fdd8e13cdacd398f730fc7c1  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-omission.csv
03a0e16a4147fb42dcb1408f6aec738b2470eb4fe66b372818a415df13c1b5f6  tabular/data/HIT-data-public-final/Tests/Forward/forward-pre-prototype.csv
be8230de5857d70438b7bb4ea74b78217a99f782883174fc62877ade508cdc49  tabular/data/HIT-data-public-final/Tests/Forward/learning-Anchor.csv
d535ae597ea5027957039d63e6354ecfd8a17eb34ff0f251e810c3d8a982ddb9  tabular/data/HIT-data-public-final/Tests/Forward/learning-LIME.csv
fc1311d14a8366e4f9354239dc7c6b0eaab2f78b01230ae2c7f08e82b985271d  tabular/data/HIT-data-public-final/Tests/Forward/learning-blackbox.csv
429506c69696db03b3412e7971f3c62e7372c921d9808998709c5f11a04292ce  tabular/data/HIT-data-public-final/Tests/Forward/learning-composite.csv
717a521eb6ddc19f425adcc550260eceab7fbe75773d63a4653e7438a79c69db  tabular/data/HIT-data-public-final/Tests/Forward/learning-decision_boundary.csv
4b788c1c4dd85ff4a4790c522995e4d9bf7f6466e984ab769bb14ba1fc9524cc  tabular/data/HIT-data-public-final/Tests/Forward/learning-omission.csv
87553bb06339fffc5bc719fa602d193057197f026a86bb4871cce4449ce8dfe7  tabular/data/HIT-data-public-final/Tests/Forward/learning-prototype.csv
9944b3a4e571e401153169e3cbfd0eea8dbb18abc08ec9b1580e21127144125f  tabular/data/HIT-data-public-final/Tests/Validity/validity-Anchor.csv
848fbaadbda809fd8a6b709a012c8c754f8f2a7445a3812d73459e8e8fac706f  tabular/data/HIT-data-public-final/Tests/Validity/validity-LIME.csv
d555385cc8126c9803caad06e4cc336b395dd9407daa889ec41951f23ded9c46  tabular/data/HIT-data-public-final/Tests/Validity/validity-composite.csv
6976151e6f2d2367d85c5f5de0827888d9cd093a4be4a3dbd0dbe7270aab38df  tabular/data/HIT-data-public-final/Tests/Validity/validity-decision_boundary.csv
ef17c2ee0ebd08c96ee3ccc0140727ac9257078570f899f7171721b60ea4bd45  tabular/data/HIT-data-public-final/Tests/Validity/validity-omission.csv
fad59f7e5dabc26bc208f819a7c5ade5755e9efc43931ad52ddea84b7c5301cd  tabular/data/HIT-data-public-final/Tests/Validity/validity-prototype.csv
a0c486e4fb5f176dddd3d2f1f0dad8d252a572bb543fc0616b623b25abaea697  text/data/HIT-data-public-final/Master-Data-Files/master-counterfactual.csv
04effab846d51b1f84f51c1fa1b21e6740af5820e1c9ed7132a786df2d615e41  text/data/HIT-data-public-final/Master-Data-Files/master-forward.csv
194dd946bee42d0d3e28f67aa18849cf5eac6de0745fdbb2bfa226de70d4e631  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-Anchor.csv
aa78e2657ac6b3e7a0887a632d8d3c773407c3fb3cc7599ce4207b483462a071  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-LIME.csv
f31cb0078c22c3719fc1b0cbb6ac829ef94fed8b0d2b71c1bf82b2cf470a930c  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-composite.csv
6752d1945452c7ad684c5949b2de45000a48672a09bdb8a48ca0b2d1761ec14d  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-decision_boundary.csv
9d28aa267c61878f63d23bfe14471b99c5dce6af7946747714c00e064a67f14b  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-omission.csv
769047475b59e381b0e33e6566e823dcd9a621a390d57ee5eb41b7c7b485839e  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-post-prototype.csv
b145f3ad1d0340dbd2a35c721a0ff07d392a9b654d7b8e2faa20782c341f8704  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-Anchor.csv
b7013471f473887b46314779bfc6651595c999f9794782354623317e1189de7b  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-LIME.csv
4b3918073fd6d4c8346eed61e4472a50373ce7ca642e6938073ad43d8fb337be  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-composite.csv
2d00a9c39d94ad25679cf5e3c171e0aa574b5c97d20b04d56d8b373213765190  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-decision_boundary.csv
aae89871a263e563b559b2058b67840979d3a016943ea3e75c57bd64aa507bc5  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-omission.csv
d58d7ad566605d24eeff7e22bc653fb74b366634ed3066888b0791a3f7dc7309  text/data/HIT-data-public-final/Tests/Counterfactual/counterfactual-pre-prototype.csv
b584d20ab92b69e06796919098ca749d334d3160432428248c9f99ec88ecc553  text/data/HIT-data-public-final/Tests/Forward/forward-post-Anchor.csv
7b4a6ede3a5dc6a7623dc9ef59b58024ffbeb76777ef055fda0378ecd50a1560  text/data/HIT-data-public-final/Tests/Forward/forward-post-LIME.csv
42aa2ebbbcda433ad83ce1464226ea8c1600d7b93b8213887a9d2f219e228367  text/data/HIT-data-public-final/Tests/Forward/forward-post-composite.csv
76d6d46674dab8f1a8a6f1356d52fc8a67db867470d44029474d587c771a52ee  text/data/HIT-data-public-final/Tests/Forward/forward-post-decision_boundary.csv
e84ff1b19efa5ea23dd505ecdd8956cd1b3187dcd10cd9e33b46000722cf62dc  text/data/HIT-data-public-final/Tests/Forward/forward-post-omission.csv
861eed2666bc72b55cde1b775090f930a132dc97966019d0635c319ca4e83e8a  text/data/HIT-data-public-final/Tests/Forward/forward-post-prototype.csv
d7f2c8994bc9793c8aa6a3d35df2632f9a9de5d58db9f7d5a6a8b0f0ebbf1f4e  text/data/HIT-data-public-final/Tests/Forward/forward-pre-Anchor.csv
20c2d24dd4972f3963cbd31e970f025a37011215728c1d870248576c367bb9b1  text/data/HIT-data-public-final/Tests/Forward/forward-pre-LIME.csv
530bc184f5431d93fb6ef0e1eacd7e6a8fcc8e4493bb9fdcff5cfcb4a989cc64  text/data/HIT-data-public-final/Tests/Forward/forward-pre-composite.csv
d88baa582876e4b9dfde371353df5692b6c7f2fc5da0d23498d3a343eff9ba6b  text/data/HIT-data-public-final/Tests/Forward/forward-pre-decision_boundary.csv
5b719ecb963a8dd9b0da222924b3a82d19a748c8042926432721869e41db86af  text/data/HIT-data-public-final/Tests/Forward/forward-pre-omission.csv
cbc803ff35bdde6c968322fbae01873f66ca0bc7350278894611bb3b38be10ef  text/data/HIT-data-public-final/Tests/Forward/forward-pre-prototype.csv
a858adbb6716b7c1797fef5f29c10dc23b4c9241e757dc938f28a4e0d72b9067  text/data/HIT-data-public-final/Tests/Forward/learning-Anchor.csv
e6f14296ad8bc61970fc7a20b4a37b9e4045967821d45b439b1bccc17694aa63  text/data/HIT-data-public-final/Tests/Forward/learning-LIME.csv
4fffa9d713475b4ab1d7d361395c1c759e68e7f8447a5b50cfe3222e460ab32e  text/data/HIT-data-public-final/Tests/Forward/learning-blackbox.csv
7da91397c8acdc9b941c6dd86d1631013eb9cfb18cf760b4bcba4348365594af  text/data/HIT-data-public-final/Tests/Forward/learning-composite.csv
4086dc42d7db17f3ba4b90b6b45c24ad8c43d506091bdbf1a5e25b980383ea00  text/data/HIT-data-public-final/Tests/Forward/learning-decision_boundary.csv
f30a887b60eef685d4f7022917d75081e6bff738aa592a36e5092bc5657fd6f0  text/data/HIT-data-public-final/Tests/Forward/learning-omission.csv
3f13d328c0eacc13dbf35a2e2ce4d9f7fd06e0f3db57eff13e13010eb59ec1a6  text/data/HIT-data-public-final/Tests/Forward/learning-prototype.csv
SUMS

# verify LIST DIR: compares every file of LIST under DIR with its sum;
# prints each problem, returns 1 if there was any.
verify() {
    bad=0
    while read -r want path; do
        if [ ! -f "$2/$path" ]; then
            echo "$me: missing file $path" >&2
            bad=1
            continue
        fi
        got=$(sha256sum <"$2/$path" | cut -d' ' -f1)
        if [ "$got" != "$want" ]; then
            echo "$me: checksum mismatch for $path" >&2
            echo "$me:   expected $want" >&2
            echo "$me:   got      $got" >&2
            bad=1
        fi
    done <"$1"
    return $bad
}

# 1. the workbooks
mkdir "$work/xlsx"
while read -r _ path; do
    mkdir -p "$work/xlsx/$(dirname "$path")"
    if [ -n "$from" ]; then
        if [ -f "$from/$path" ]; then
            cp "$from/$path" "$work/xlsx/$path"
        fi
    else
        url="https://raw.githubusercontent.com/$REPO/$COMMIT/$path"
        download "$url" "$work/xlsx/$path" || rm -f "$work/xlsx/$path"
        [ -f "$work/xlsx/$path" ] || echo "$me: cannot download $url" >&2
    fi
done <"$work/xlsx.sha256"
verify "$work/xlsx.sha256" "$work/xlsx" ||
    fail "the workbooks are not the published ones (${from:-$REPO@$COMMIT}); nothing was installed"
echo "$me: 72 workbooks verified"

# 2. the conversion to CSV
mkdir "$work/csv"
cat >"$work/xlsx2csv.py" <<'PY'
# Converts the first sheet of each workbook to CSV.
import os
import re
import sys
import zipfile
import xml.etree.ElementTree as ET

NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"

def col_index(ref):
    n = 0
    for ch in re.match(r"[A-Z]+", ref).group(0):
        n = n * 26 + ord(ch) - 64
    return n - 1

def text_of(node):
    # the text of an <is> or <si> element: its <t>, or the <t> of each
    # rich-text run <r> (phonetic runs <rPh> are left out)
    parts = [t.text or "" for t in node.findall(NS + "t")]
    for r in node.findall(NS + "r"):
        parts += [t.text or "" for t in r.findall(NS + "t")]
    return "".join(parts)

def number(v):
    f = float(v)
    if f.is_integer() and abs(f) < 1e15:
        return str(int(f))
    return repr(f)

def convert(src, dst):
    with zipfile.ZipFile(src) as z:
        shared = []
        if "xl/sharedStrings.xml" in z.namelist():
            root = ET.fromstring(z.read("xl/sharedStrings.xml"))
            shared = [text_of(si) for si in root.findall(NS + "si")]
        sheet = ET.fromstring(z.read("xl/worksheets/sheet1.xml"))
    rows = []
    for row in sheet.iter(NS + "row"):
        cells = {}
        for c in row.findall(NS + "c"):
            t = c.get("t", "n")
            v = c.find(NS + "v")
            if t == "inlineStr":
                node = c.find(NS + "is")
                val = text_of(node) if node is not None else ""
            elif t == "s":
                val = shared[int(v.text)]
            elif v is None or v.text is None:
                val = ""
            elif t == "n":
                val = number(v.text)
            elif t == "b":
                val = "TRUE" if v.text == "1" else "FALSE"
            else:
                val = v.text
            cells[col_index(c.get("r"))] = val
        rows.append(cells)
    width = max((max(c) + 1 for c in rows if c), default=0)
    out = []
    for cells in rows:
        fields = []
        for i in range(width):
            s = cells.get(i, "")
            if any(ch in s for ch in ',"\r\n'):
                s = '"' + s.replace('"', '""') + '"'
            fields.append(s)
        out.append(",".join(fields) + "\r\n")
    with open(dst, "w", encoding="utf-8", newline="") as f:
        f.write("".join(out))


xlsx_dir, csv_dir, listing = sys.argv[1:4]
for line in open(listing, encoding="utf-8"):
    path = line.split(None, 1)[1].strip()
    src = os.path.join(xlsx_dir, path)
    dst = os.path.join(csv_dir, path[: -len(".xlsx")] + ".csv")
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    convert(src, dst)
PY
python3 "$work/xlsx2csv.py" "$work/xlsx" "$work/csv" "$work/xlsx.sha256" ||
    fail "cannot convert the workbooks to CSV; nothing was installed"
verify "$work/csv.sha256" "$work/csv" ||
    fail "the CSV conversion differs from the reference; nothing was installed"
echo "$me: 72 CSV files verified"

# 3. install: replace each study's data/ folder
for study in $STUDIES; do
    domain=${study%%-*}
    rm -rf "$dest/$study/data.new"
    cp -R "$work/csv/$domain/data/HIT-data-public-final" "$dest/$study/data.new"
    rm -rf "$dest/$study/data"
    mv "$dest/$study/data.new" "$dest/$study/data"
    echo "$me: installed $dest/$study/data"
done
