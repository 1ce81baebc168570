import torch
from vlm.modeling import VisionLanguageModel


def my_model_function():
    torch.manual_seed(0)
    return VisionLanguageModel()


def GetInput():
    return (torch.randn(2, 5, 8),)
