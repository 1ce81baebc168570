"""A Dynamo switch where the program compiles itself (issue 68's recurrent modules): `fix
--unsafe-fixes -- python SCRIPT` measures the switch the remaining breaks' hints name and writes it
before the script's own torch.compile call, verified as written. Two recurrent models from
unrelated code bases: an audio codec's LSTM over a conv feature map (EnCodec's SLSTM, trained a
step) and a reinforcement-learning policy's GRU carrying its hidden state over a rollout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_entry import invoke

pytestmark = [pytest.mark.slow, pytest.mark.dynamo]

CODEC = '''import torch
from torch import nn


class SLSTM(nn.Module):
    """An LSTM over a (batch, channels, time) feature map, with a skip."""

    def __init__(self, dim, layers=2):
        super().__init__()
        self.lstm = nn.LSTM(dim, dim, layers)

    def forward(self, x):
        x = x.permute(2, 0, 1)
        y, _ = self.lstm(x)
        return (y + x).permute(1, 2, 0)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(1, 8, 4, stride=2)
        self.lstm = SLSTM(8)
        self.out = nn.Conv1d(8, 4, 1)

    def forward(self, wav):
        return self.out(self.lstm(torch.relu(self.conv(wav))))
'''

TRAIN_CODEC = '''import torch

from codec import Encoder


def main():
    torch.manual_seed(0)
    model = Encoder()
    compiled = torch.compile(model, backend="eager")
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    wav, target = torch.randn(2, 1, 32), torch.randn(2, 4, 15)
    for step in range(2):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(compiled(wav), target)
        loss.backward()
        grad = sum(p.grad.norm() for p in model.parameters())
        optimizer.step()
        print(f"step {step}: loss {loss.item():.6f} grad {grad.item():.6f}")


if __name__ == "__main__":
    main()
'''

POLICY = '''import torch
from torch import nn


class RecurrentPolicy(nn.Module):
    def __init__(self, observations=6, hidden=16, actions=3):
        super().__init__()
        self.encoder = nn.Linear(observations, hidden)
        self.core = nn.GRU(hidden, hidden, batch_first=True)
        self.pi = nn.Linear(hidden, actions)

    def forward(self, obs, state):
        z = torch.tanh(self.encoder(obs)).unsqueeze(1)
        out, state = self.core(z, state)
        return self.pi(out[:, 0]).log_softmax(-1), state
'''

ROLLOUT = '''import torch

from policy import RecurrentPolicy

torch.manual_seed(0)
policy = RecurrentPolicy()


@torch.compile(backend="eager")
def act(obs, state):
    return policy(obs, state)


state = torch.zeros(1, 4, 16)
loss = 0
for t in range(4):
    logp, state = act(torch.randn(4, 6), state)
    loss = loss - logp[:, t % 3].sum()
loss.backward()
print(f"loss {loss.item():.6f} grad {policy.encoder.weight.grad.norm().item():.6f}")
'''


# Each program's files, by the name the tests give it.
PROJECTS = {
    "codec": {"codec.py": CODEC, "train_codec.py": TRAIN_CODEC},
    "rollout": {"policy.py": POLICY, "rollout.py": ROLLOUT},
}


def _project(name: str, folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for file, text in PROJECTS[name].items():
        (folder / file).write_text(text)
    monkeypatch.chdir(folder)
    return folder


def _printed(folder: Path, script: str) -> str:
    return subprocess.run([sys.executable, script], cwd=folder, capture_output=True, text=True, check=True).stdout


def _breaks(script: str) -> int:
    result = invoke("explain", "--format", "json", "--", sys.executable, script)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["graph_breaks"]


@pytest.mark.parametrize(
    "folder, model, script, compile_line, blank",
    [
        ("codec", "codec.py", "train_codec.py", '    compiled = torch.compile(model, backend="eager")\n', ""),
        # A top-level definition keeps its two blank lines above it.
        ("rollout", "policy.py", "rollout.py", '@torch.compile(backend="eager")\n', "\n\n"),
    ],
)
def test_allow_rnn_is_written_before_the_scripts_own_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, folder: str, model: str, script: str, compile_line: str, blank: str
):
    root = _project(folder, tmp_path, monkeypatch)
    original, printed = (root / script).read_text(), _printed(root, script)
    assert _breaks(script) >= 1  # "Attempted to wrap RNN, GRU, or LSTM" (GB0014)

    # Without --unsafe-fixes the switch is measured, and not written: it is global to the process.
    safe = invoke("fix", "--format", "json", model, "--", sys.executable, script)
    assert safe.exit_code == 0, safe.output
    data = json.loads(safe.stdout)
    assert data["capture_setting_note"].startswith("a setting is global to the process")
    assert [trial["settings"] for trial in data["capture_settings"]][0] == ["allow_rnn"]
    assert (root / script).read_text() == original

    result = invoke("fix", "--unsafe-fixes", "--format", "json", model, "--", sys.executable, script)
    assert result.exit_code == 0, result.output
    fix = json.loads(result.stdout)["capture_setting_fix"]
    assert Path(fix["path"]).name == script and fix["settings"] == ["allow_rnn"]
    assert "graph breaks" in fix["measured"] and "-> 0" in fix["measured"]
    assert fix["measured"].endswith("the command succeeds, printing the same")
    indent = compile_line[: len(compile_line) - len(compile_line.lstrip())]
    assert (root / script).read_text() == original.replace(
        compile_line,
        f"{indent}# Measured by graphweld fix: fewer graph breaks, the command still succeeds.\n"
        f"{indent}torch._dynamo.config.allow_rnn = True\n{blank}" + compile_line,
    )
    # The program as written: one graph through the recurrent module, the same losses and gradients.
    assert _breaks(script) == 0
    assert _printed(root, script) == printed
    # A second run has nothing left to write.
    again = invoke("fix", "--unsafe-fixes", "--format", "json", model, "--", sys.executable, script)
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["capture_setting_fix"] is None
    assert (root / model).read_text() == PROJECTS[folder][model]


def test_a_command_whose_files_do_not_compile_gets_the_line_to_add(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    codec = _project("codec", tmp_path, monkeypatch)
    # The compile is in a script graphweld is not started on (run through `python -c`): the line
    # to add is said, with what it measured, and nothing is written.
    command = "import runpy; runpy.run_path('train_codec.py', run_name='__main__')"
    result = invoke("fix", "--unsafe-fixes", "--format", "json", "codec.py", "--", sys.executable, "-c", command)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["capture_setting_fix"] is None
    assert data["capture_setting_note"] == (
        "no file of the command's that graphweld may write calls torch.compile; "
        "set `torch._dynamo.config.allow_rnn = True` where you compile"
    )
    assert (codec / "train_codec.py").read_text() == TRAIN_CODEC


GRAD_CAM = '''import torch
from torch import nn


class GradCAM:
    """Keeps the target layer's output gradient, as Grad-CAM reads it."""

    def __init__(self, layer):
        self.gradients = None
        layer.register_full_backward_hook(self.save_gradient)

    def save_gradient(self, module, grad_input, grad_output):
        self.gradients = grad_output[0].detach()


torch.manual_seed(0)
net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1))
cam = GradCAM(net[2])
compiled = torch.compile(net, backend="aot_eager")
compiled(torch.randn(2, 3, 8, 8)).sum().backward()
print(f"gradient {cam.gradients.norm().item():.6f}")
'''


def test_a_switch_whose_run_fails_is_said_and_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # A module-level backward hook (GB0083): Dynamo's hint names compiled_autograd, but with the
    # backward run outside the compiled call the run fails, on torch 2.13 and 2.15 alike.
    script = tmp_path / "grad_cam.py"
    script.write_text(GRAD_CAM)
    monkeypatch.chdir(tmp_path)
    result = invoke("fix", "--unsafe-fixes", "grad_cam.py", "--", sys.executable, "grad_cam.py")
    assert result.exit_code == 0, result.output
    assert "with compiled_autograd=True the run fails" in result.output
    assert "BackwardState requires CompiledAutograd" in result.output
    assert script.read_text() == GRAD_CAM
