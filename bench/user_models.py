"""Three small PyTorch modules of a user's own, as a new user would write
them: the graphs of bench/default_train.py ("What the default train
gives", docs/results.md). Import each with
    placeto-import-torch --module bench/user_models.py:TwoTower --input x=3,64,64 --loss ce:10 -o cnn.json
    placeto-import-torch --module bench/user_models.py:FourBranch --input x=512 --loss ce:10 -o mlp.json
    placeto-import-torch --module bench/user_models.py:Enc --input x=64,256 --loss ce:10 -o tf.json
(graphs/import/torch_graph.py in a checkout)."""
import torch, torch.nn as nn
class TwoTower(nn.Module):
    def __init__(self):
        super().__init__()
        def tower():
            return nn.Sequential(nn.Conv2d(3,64,3,padding=1), nn.ReLU(), nn.Conv2d(64,128,3,padding=1), nn.ReLU(),
                                 nn.MaxPool2d(2), nn.Conv2d(128,128,3,padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.a = tower(); self.b = tower(); self.fc = nn.Linear(256, 10)
    def forward(self, x):
        return self.fc(torch.cat([self.a(x), self.b(x)], 1))
class FourBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.br = nn.ModuleList([nn.Sequential(nn.Linear(512,1024), nn.ReLU(), nn.Linear(1024,1024), nn.ReLU(), nn.Linear(1024,256)) for _ in range(4)])
        self.fc = nn.Linear(1024, 10)
    def forward(self, x):
        return self.fc(torch.cat([b(x) for b in self.br], 1))
class Enc(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 3); self.fc = nn.Linear(256, 10)
    def forward(self, x):
        return self.fc(self.enc(x).mean(1))
